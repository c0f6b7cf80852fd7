/// What the stub's App Store Server API has answered so far, as `GET /stub/server-api/stats`
/// shows it.
public struct StubServerAPIStats: Codable, Hashable, Sendable {
    /// The answers of one deployment.
    public struct Endpoint: Codable, Hashable, Sendable {
        /// Requests received, authenticated or not.
        public var requests: Int = 0
        /// Answers by HTTP status, as strings (`"200"`, `"404"`, `"429"`).
        public var statuses: [String: Int] = [:]

        /// How many answers had `status`.
        public func count(status: Int) -> Int { statuses[String(status)] ?? 0 }

        public init() {}
    }

    /// `/inApps/...`.
    public var production = Endpoint()
    /// `/sandbox/inApps/...`.
    public var sandbox = Endpoint()
    /// Transactions registered so far (a re-registration counts again).
    public var registered = 0

    public init() {}

    /// The answers of `environment`.
    public subscript(environment: StubReceipt.Environment) -> Endpoint {
        get { environment == .production ? production : sandbox }
        set {
            if environment == .production { production = newValue } else { sandbox = newValue }
        }
    }
}
