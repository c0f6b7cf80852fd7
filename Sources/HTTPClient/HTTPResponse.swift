import Foundation

/// A complete HTTP response: status, header fields and the whole body.
///
/// Any status the server sends, 4xx and 5xx included, arrives as a response; only a failure
/// to get one at all is an ``HTTPClientError``. Deciding what a status means is the
/// caller's business (for the validator, a 503 is a retry, a 400 is not).
public struct HTTPResponse: Sendable {
    /// The status code, such as `200`.
    public var status: Int
    /// Header fields of the final response, in the order received, names as sent.
    ///
    /// Interim responses (`100 Continue`) are not included.
    public var headers: [(name: String, value: String)]
    /// The body, decoded of any transfer encoding, as received.
    public var body: [UInt8]
    /// The HTTP version the response came in: `"2"` where the server offered HTTP/2 in the
    /// TLS handshake, else `"1.1"` (or `"1.0"`).
    public var version: String

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Header fields in the order received.
    ///   - body: The body bytes.
    ///   - version: The HTTP version, such as `"1.1"` or `"2"`.
    public init(
        status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], version: String = "1.1"
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.version = version
    }

    /// The value of the first header field named `name`, compared case-insensitively
    /// (as HTTP field names are), or `nil` if there is none.
    /// - Parameter name: The field name, in any case, such as `"content-type"`.
    public func header(_ name: String) -> String? {
        self.headers.first { Self.sameName($0.name, name) }?.value
    }

    /// The values of every header field named `name`, compared case-insensitively, in order.
    /// - Parameter name: The field name, in any case, such as `"set-cookie"`.
    public func headers(named name: String) -> [String] {
        self.headers.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(self.status) }

    /// The body as UTF-8 text; invalid bytes become U+FFFD.
    public var bodyString: String { String(decoding: self.body, as: UTF8.self) }

    /// The body as `Data`, for `JSONDecoder` and friends.
    public var bodyData: Data { Data(self.body) }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    private static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
