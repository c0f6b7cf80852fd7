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
    /// Requests per endpoint (`production/getTransactionInfo`) and second since 1970 (a string, for JSON), the
    /// last hour of them: what Apple's rate limits count.
    public var callsPerSecond: [String: [String: Int]] = [:]

    public init() {}

    /// The most requests `endpoint` (`production/getTransactionInfo`) received in one second.
    public func busiestSecond(_ endpoint: String) -> Int { callsPerSecond[endpoint]?.values.max() ?? 0 }

    /// Counts a request of `endpoint` in `second`, forgetting seconds older than an hour.
    /// - Returns: The requests of that second so far.
    mutating func record(_ endpoint: String, second: Int64) -> Int {
        var seconds = callsPerSecond[endpoint, default: [:]]
        seconds[String(second), default: 0] += 1
        if seconds.count > 3600 { seconds = seconds.filter { (Int64($0.key) ?? 0) > second - 3600 } }
        callsPerSecond[endpoint] = seconds
        return seconds[String(second)] ?? 0
    }

    enum CodingKeys: String, CodingKey {
        case production, sandbox, registered
        case callsPerSecond = "calls_per_second"
    }

    /// The answers of `environment`.
    public subscript(environment: StubReceipt.Environment) -> Endpoint {
        get { environment == .production ? production : sandbox }
        set {
            if environment == .production { production = newValue } else { sandbox = newValue }
        }
    }
}
