import CCurl

/// One request on its way through the loop: what to send, what came back, who is waiting.
///
/// Ownership, which is why `@unchecked Sendable` is sound:
/// - the `let`s are fixed in `init`, on the caller's thread, and only read afterwards;
/// - `completion` (an awaiting task's continuation, or a caller's callback) is set by the
///   caller before the transfer is handed to the loop through its locked mailbox, and after
///   that only the loop thread touches it (or, if the loop refused the transfer, the caller
///   again);
/// - everything under "Loop thread only" is touched by the loop thread alone, including from
///   the libcurl callbacks, which run inside `curl_multi_perform` on that thread.
final class CurlTransfer: @unchecked Sendable {
    typealias Outcome = Result<HTTPResponse, HTTPClientError>

    let url: String
    let method: HTTPRequest.Method
    /// `Name: value` lines, formatted here so the loop thread only hands them to libcurl.
    let headerLines: [String]
    /// A copy of the body in memory that stays put until the transfer ends, since
    /// `CURLOPT_POSTFIELDS` does not copy; `nil` for requests that send no body.
    let body: UnsafeMutableRawPointer?
    let bodyCount: Int
    let timeoutMilliseconds: Int
    let connectTimeoutMilliseconds: Int
    let maxResponseBodySize: Int

    var completion: ((Outcome) -> Void)?

    // MARK: Loop thread only

    enum State {
        /// Not yet taken from the mailbox.
        case new
        /// Added to the multi handle.
        case active
        /// The completion has been called.
        case finished
    }

    var state = State.new
    /// Cancellation reached the loop before the transfer itself did.
    var cancelRequested = false
    /// The easy handle while ``state`` is `.active`.
    var easy: CurlEasyHandle?
    /// Position in the loop's list of active transfers, for O(1) removal.
    var activeIndex = -1
    var responseHeaders: [(name: String, value: String)] = []
    var responseBody: [UInt8] = []
    var responseTooLarge = false

    /// Checks and prepares a request for the loop thread.
    /// - Throws: ``HTTPClientError/Code/invalidRequest`` for anything libcurl would misread:
    ///   CR, LF or NUL in a header, method or URL, or a limit that is not positive.
    init(_ request: HTTPRequest, configuration: CurlHTTPClient.Configuration) throws(HTTPClientError) {
        guard Self.isToken(request.method.rawValue) else {
            throw HTTPClientError(.invalidRequest, message: "invalid method \(request.method)")
        }
        guard !request.url.utf8.contains(where: Self.isForbidden) else {
            throw HTTPClientError(.invalidRequest, message: "URL contains CR, LF or NUL")
        }
        var lines: [String] = []
        lines.reserveCapacity(request.headers.count + 2)
        var hasContentType = false
        for (name, value) in request.headers {
            guard Self.isToken(name) else {
                throw HTTPClientError(.invalidRequest, message: "invalid header name \"\(name)\"")
            }
            guard !value.utf8.contains(where: Self.isForbidden) else {
                throw HTTPClientError(.invalidRequest, message: "header \(name) has CR, LF or NUL in its value")
            }
            hasContentType = hasContentType || Self.isContentType(name)
            // libcurl reads "Name:" as "remove this header" and "Name;" as "send it empty".
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }

        let method = request.method
        let sendsBody = request.body != nil || method == .post || method == .put || method == .patch
        if sendsBody {
            // Without these libcurl would label the body a form and, past 1 MiB, wait up to
            // a second for a `100 Continue` some servers never send.
            if !hasContentType {
                lines.append("Content-Type: application/octet-stream")
            }
            lines.append("Expect:")
            let bytes = request.body ?? []
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
            self.body = storage.baseAddress
            self.bodyCount = bytes.count
        } else {
            self.body = nil
            self.bodyCount = 0
        }

        let timeout = request.timeout ?? configuration.timeout
        let connectTimeout = request.connectTimeout ?? configuration.connectTimeout
        guard timeout > .zero, connectTimeout > .zero else {
            throw HTTPClientError(.invalidRequest, message: "timeouts must be positive")
        }
        self.url = request.url
        self.method = method
        self.headerLines = lines
        self.timeoutMilliseconds = Self.milliseconds(timeout)
        self.connectTimeoutMilliseconds = Self.milliseconds(connectTimeout)
        self.maxResponseBodySize = configuration.maxResponseBodySize
    }

    deinit {
        self.body?.deallocate()
    }

    /// Resumes the waiting task; called exactly once per transfer.
    func finish(_ outcome: Outcome) {
        self.state = .finished
        guard let completion = self.completion else {
            preconditionFailure("transfer finished twice")
        }
        self.completion = nil
        completion(outcome)
    }

    // MARK: libcurl callbacks

    /// `CURLOPT_WRITEFUNCTION`: appends a piece of the body; returning less than `count`
    /// makes libcurl abort the transfer with `CURLE_WRITE_ERROR`.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard self.responseBody.count + bytes.count <= self.maxResponseBodySize else {
            self.responseTooLarge = true
            return 0
        }
        self.responseBody.append(contentsOf: bytes)
        return bytes.count
    }

    /// `CURLOPT_HEADERFUNCTION`: one complete header line, CRLF included.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n") {
            end -= 1
        }
        guard end > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: line[..<end])
        if bytes.starts(with: "HTTP/".utf8) {
            // A new status line: whatever came before was an interim (1xx) response.
            self.responseHeaders.removeAll(keepingCapacity: true)
            return
        }
        if bytes[0] == UInt8(ascii: " ") || bytes[0] == UInt8(ascii: "\t") {
            // Obsolete line folding: the line continues the previous field's value.
            if let last = self.responseHeaders.indices.last {
                self.responseHeaders[last].value += " " + Self.trimmedString(bytes[...])
            }
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Self.trimmedString(bytes[..<colon])
        let value = Self.trimmedString(bytes[(colon + 1)...])
        if Self.isContentLength(name), let length = Int(value), length > 0 {
            self.responseBody.reserveCapacity(min(length, self.maxResponseBodySize))
        }
        self.responseHeaders.append((name, value))
    }

    // MARK: Helpers

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int.max }
        // Round up so a limit under a millisecond is not turned into "no limit" (0).
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (total, totalOverflow) = Int(clamping: whole).addingReportingOverflow(Int(fraction))
        return totalOverflow ? Int.max : max(1, total)
    }

    private static func isForbidden(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == 0
    }

    /// RFC 9110 `token`: the characters a method or field name may have.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    private static func isContentType(_ name: String) -> Bool {
        name.utf8.count == 12 && name.lowercased() == "content-type"
    }

    private static func isContentLength(_ name: String) -> Bool {
        name.utf8.count == 14 && name.lowercased() == "content-length"
    }

    private static func trimmedString(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            slice = slice.dropFirst()
        }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            slice = slice.dropLast()
        }
        return String(decoding: slice, as: UTF8.self)
    }
}
