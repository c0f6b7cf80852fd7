extension CurlHTTPClient {
    /// Limits and defaults for a ``CurlHTTPClient``.
    ///
    /// TLS peer and host verification are always on and cannot be configured off; to trust a
    /// private CA (a stub store with its own certificate), name it in ``caFile``.
    public struct Configuration: Sendable {
        /// The most connections open at once, across all hosts
        /// (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); also the size of the keep-alive cache.
        ///
        /// Requests beyond the limit wait inside libcurl for a free connection, and that wait
        /// counts against their ``HTTPRequest/timeout``.
        public var maxConnections: Int
        /// The most connections open at once to one host and port
        /// (`CURLMOPT_MAX_HOST_CONNECTIONS`), shared among the client's lanes of 100. Over
        /// HTTP/2 one connection per lane carries its requests.
        public var maxConnectionsPerHost: Int
        /// The total time limit of a request that sets none.
        public var timeout: Duration
        /// The connect time limit (TCP and TLS) of a request that sets none.
        public var connectTimeout: Duration
        /// The `User-Agent` sent unless a request names its own; `nil` sends none.
        public var userAgent: String?
        /// A PEM file of CA certificates to trust instead of the system's (`CURLOPT_CAINFO`).
        public var caFile: String?
        /// The largest response body accepted, in bytes; a larger one fails with
        /// ``HTTPClientError/Code/responseTooLarge`` so a misbehaving server cannot exhaust memory.
        public var maxResponseBodySize: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - maxConnections: The most connections open at once, all hosts together.
        ///   - maxConnectionsPerHost: The most connections open at once to one host.
        ///   - timeout: The default total time limit of a request.
        ///   - connectTimeout: The default connect time limit of a request.
        ///   - userAgent: The default `User-Agent`, or `nil` for none.
        ///   - caFile: A PEM file of trusted CA certificates, or `nil` for the system's.
        ///   - maxResponseBodySize: The largest response body accepted, in bytes.
        public init(
            maxConnections: Int = 256,
            maxConnectionsPerHost: Int = 64,
            timeout: Duration = .seconds(30),
            connectTimeout: Duration = .seconds(10),
            userAgent: String? = "iap-pipeline",
            caFile: String? = nil,
            maxResponseBodySize: Int = 16 << 20
        ) {
            self.maxConnections = maxConnections
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.userAgent = userAgent
            self.caFile = caFile
            self.maxResponseBodySize = maxResponseBodySize
        }
    }
}
