/// What a bulk replay or discard did, letter by letter counted.
public struct BulkSummary: Codable, Hashable, Sendable {
    /// Replayed (or discarded) as asked.
    public var done: Int = 0
    /// Refused by the broker or the database; they wait as before.
    public var failed: Int = 0
    /// Resolved by someone else meanwhile.
    public var skipped: Int = 0
    /// Ids of the failed letters, with why.
    public var failures: [Failure] = []

    public struct Failure: Codable, Hashable, Sendable {
        public var id: String
        public var error: String
    }

    public init() {}

    public var total: Int { done + failed + skipped }
}

/// How far a bulk operation is: `done` of `total` letters handled.
public struct BulkProgress: Hashable, Sendable {
    public var handled: Int
    public var total: Int
    public var summary: BulkSummary
}
