/// One outgoing HTTP request, as a plain value.
///
/// A request is data only: build it anywhere, keep it, and retry it by passing it to
/// ``CurlHTTPClient/execute(_:)`` again.
///
/// ```swift
/// let request = HTTPRequest(
///     method: .post,
///     url: "https://buy.itunes.apple.com/verifyReceipt",
///     headers: [("Content-Type", "application/json")],
///     body: Array(json.utf8),
///     timeout: .seconds(10)
/// )
/// let response = try await client.execute(request)
/// ```
public struct HTTPRequest: Sendable {
    /// The request method, such as `GET` or `POST`.
    public var method: Method
    /// The absolute `http://` or `https://` URL; other schemes are refused.
    public var url: String
    /// Header fields in the order they are sent. Names may repeat.
    ///
    /// Names and values must not contain CR, LF or NUL: such a request fails with
    /// ``HTTPClientError/Code/invalidRequest`` rather than let a value smuggle in a header.
    public var headers: [(name: String, value: String)]
    /// The request body, or `nil` for none.
    ///
    /// A body without a `Content-Type` header is sent as `application/octet-stream`
    /// (libcurl would otherwise claim a form).
    public var body: [UInt8]?
    /// The limit on the whole exchange, including the wait for a free connection;
    /// `nil` uses ``CurlHTTPClient/Configuration/timeout``.
    public var timeout: Duration?
    /// The limit on establishing the connection (TCP and TLS);
    /// `nil` uses ``CurlHTTPClient/Configuration/connectTimeout``.
    public var connectTimeout: Duration?

    /// Creates a request.
    /// - Parameters:
    ///   - method: The request method; `GET` by default.
    ///   - url: The absolute `http://` or `https://` URL.
    ///   - headers: Header fields in the order they are sent.
    ///   - body: The request body, or `nil` for none.
    ///   - timeout: The total time limit, or `nil` for the client's default.
    ///   - connectTimeout: The connect time limit, or `nil` for the client's default.
    public init(
        method: Method = .get,
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration? = nil,
        connectTimeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }
}
