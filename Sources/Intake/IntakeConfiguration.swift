import PipelineCore

/// The intake's settings: where it listens and whom it serves.
public struct IntakeConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Bearer tokens of the backends allowed to call the API.
    public var apiTokens: [String]
    /// Larger bodies get 413; a real app receipt is a few KB.
    public var maxBodySize: Int
    /// How long an order stays open for its payment (a payment after that still credits).
    public var orderLifetime: Duration

    public init(
        host: String = "127.0.0.1", port: Int = 8080, apiTokens: [String], maxBodySize: Int = 1 << 20,
        orderLifetime: Duration = .seconds(1800)
    ) {
        self.host = host
        self.port = port
        self.apiTokens = apiTokens
        self.maxBodySize = maxBodySize
        self.orderLifetime = orderLifetime
    }

    /// Reads `IAP_HTTP_HOST`, `IAP_HTTP_PORT`, `IAP_API_TOKENS` and `IAP_ORDER_TTL_SECONDS`.
    /// - Parameter defaultTokens: used when `IAP_API_TOKENS` is unset (local runs only).
    public init(environment env: EnvironmentReader, defaultTokens: [String] = []) throws(SettingError) {
        let tokens = env.list("IAP_API_TOKENS")
        let chosen = tokens.isEmpty ? defaultTokens : tokens
        guard !chosen.isEmpty else {
            throw SettingError(
                variable: "IAP_API_TOKENS", problem: "is required: comma-separated bearer tokens for the backend")
        }
        if let short = chosen.first(where: { $0.count < 16 }) {
            throw SettingError(
                variable: "IAP_API_TOKENS", problem: "each token needs at least 16 characters (one has \(short.count))")
        }
        self.init(
            host: env.string("IAP_HTTP_HOST", default: "127.0.0.1"),
            port: try env.int("IAP_HTTP_PORT", default: 8080, range: 0...65535),
            apiTokens: chosen,
            orderLifetime: .seconds(try env.int("IAP_ORDER_TTL_SECONDS", default: 1800, range: 10...(30 * 86_400))))
    }
}
