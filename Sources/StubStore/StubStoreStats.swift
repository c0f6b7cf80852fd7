/// What a ``StubAppStore`` has answered so far, as `GET /stub/stats` shows it.
public struct StubStoreStats: Codable, Hashable, Sendable {
    /// The answers of one endpoint.
    public struct Endpoint: Codable, Hashable, Sendable {
        /// Requests received, whatever became of them.
        public var requests: Int = 0
        /// Verify answers by their `status`, as strings (`"0"`, `"21007"`).
        public var statuses: [String: Int] = [:]
        /// Requests answered `HTTP 503` by ``StubStoreConfiguration/errorRate``.
        public var unavailable: Int = 0
        /// Requests that hung by ``StubStoreConfiguration/timeoutRate``.
        public var hung: Int = 0

        /// How many verify answers carried `status`.
        public func count(status: Int) -> Int { statuses[String(status)] ?? 0 }

        public init() {}
    }

    /// `POST /verifyReceipt`.
    public var production = Endpoint()
    /// `POST /sandbox/verifyReceipt`.
    public var sandbox = Endpoint()
    /// Receipts signed by ``StubAppStore/issue(_:)`` or `POST /stub/receipts`.
    public var receiptsMinted = 0

    public init() {}

    /// The answers of the endpoint for `environment`.
    public subscript(environment: StubReceipt.Environment) -> Endpoint {
        get { environment == .production ? production : sandbox }
        set {
            if environment == .production { production = newValue } else { sandbox = newValue }
        }
    }

    enum CodingKeys: String, CodingKey {
        case production, sandbox
        case receiptsMinted = "receipts_minted"
    }
}
