/// Why a request got no response, and whether trying again could help.
///
/// Compare ``code`` to decide what happened and read ``isRetryable`` to decide what to do
/// next: a timeout or a refused connection is worth a delayed retry, a malformed URL or a
/// certificate the server should not have is not.
///
/// ```swift
/// do {
///     let response = try await client.execute(request)
/// } catch let error as HTTPClientError {
///     if error.code == .timeout { logger.info("verify endpoint is slow") }
///     return error.isRetryable ? .retry(after: .seconds(5)) : .deadLetter(reason: "\(error)")
/// }
/// ```
///
/// A struct over a private enum, so that codes can be added without breaking callers.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public let code: Code
    /// Whether the same request may succeed if sent again later.
    public let isRetryable: Bool
    /// Detail for people: libcurl's own message where libcurl reported the failure.
    public let message: String
    /// The `CURLcode` libcurl returned, or `nil` if the failure did not come from libcurl.
    public let curlCode: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - isRetryable: Whether sending again may help; defaults to what `code` usually means.
    ///   - message: Detail for people.
    ///   - curlCode: The `CURLcode` behind it, if any.
    public init(_ code: Code, isRetryable: Bool? = nil, message: String, curlCode: Int? = nil) {
        self.code = code
        self.isRetryable = isRetryable ?? code.isRetryableByDefault
        self.message = message
        self.curlCode = curlCode
    }

    /// The code, the retry advice and the message, such as
    /// `timeout (retryable): Operation timed out after 300 milliseconds with 0 bytes received [curl 28]`.
    public var description: String {
        var text = "\(self.code) (\(self.isRetryable ? "retryable" : "not retryable")): \(self.message)"
        if let curlCode {
            text += " [curl \(curlCode)]"
        }
        return text
    }
}

extension HTTPClientError {
    /// The kind of an ``HTTPClientError``; compare with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case timeout
            case connectionRefused
            case dnsFailure
            case tls
            case transport
            case invalidRequest
            case responseTooLarge
            case invalidConfiguration
            case cancelled
            case shutdown
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The request did not finish within its time limit (`CURLE_OPERATION_TIMEDOUT`),
        /// connect time included. Retryable.
        public static let timeout = Code(.timeout)
        /// Nothing accepted the connection (`CURLE_COULDNT_CONNECT`): the server is down or
        /// restarting. Retryable, and distinct from ``timeout``.
        public static let connectionRefused = Code(.connectionRefused)
        /// The host name did not resolve (`CURLE_COULDNT_RESOLVE_HOST`). Retryable, since
        /// DNS outages pass.
        public static let dnsFailure = Code(.dnsFailure)
        /// TLS failed. A failed handshake is retryable; a certificate that does not verify
        /// is not, because sending again will meet the same certificate.
        public static let tls = Code(.tls)
        /// Any other network failure: reset, closed early, nothing received. Retryable.
        public static let transport = Code(.transport)
        /// The request cannot be sent as given: bad URL, unsupported scheme, a header with
        /// CR or LF. Not retryable.
        public static let invalidRequest = Code(.invalidRequest)
        /// The response body exceeded ``CurlHTTPClient/Configuration/maxResponseBodySize``.
        /// Not retryable.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// The client's configuration is unusable; thrown by ``CurlHTTPClient/init(configuration:logger:)``.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The awaiting task was cancelled; the transfer was abandoned. Not retryable by
        /// this client, since whoever cancelled it no longer wants the answer.
        public static let cancelled = Code(.cancelled)
        /// The client was shut down before the request finished. Retryable elsewhere, such as
        /// by another process after a redelivery.
        public static let shutdown = Code(.shutdown)

        /// The code's name, such as `timeout`.
        public var description: String { self.value.rawValue }

        fileprivate var isRetryableByDefault: Bool {
            switch self.value {
            case .timeout, .connectionRefused, .dnsFailure, .tls, .transport, .shutdown: true
            case .invalidRequest, .responseTooLarge, .invalidConfiguration, .cancelled: false
            }
        }
    }
}
