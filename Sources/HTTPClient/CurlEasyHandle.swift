import CCurl

/// A libcurl easy handle and its error buffer, owned by the loop thread and reused across
/// transfers, so a busy client does not allocate and tear down handles per request.
///
/// Not `Sendable`: only the loop thread may touch it.
final class CurlEasyHandle {
    /// The `CURL *`.
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl writes a specific message here when a transfer fails.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request's header list; libcurl reads it until the transfer ends.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(self.raw)
        curl_slist_free_all(self.headerList)
        self.errorBuffer.deallocate()
    }

    /// libcurl's message for the last failure, or `""`.
    var errorMessage: String {
        String(cString: self.errorBuffer)
    }

    /// The status code of the response just received.
    var responseCode: Int {
        var code = 0
        _ = iap_curl_easy_getinfo_long(self.raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The HTTP version of the response just received, as ``HTTPResponse/version`` names it.
    var responseVersion: String {
        var version = 0
        _ = iap_curl_easy_getinfo_long(self.raw, CURLINFO_HTTP_VERSION, &version)
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return "1.1"
        }
    }

    /// Forgets the last transfer's options, keeping the handle (and libcurl's caches) for the next.
    func reset() {
        curl_easy_reset(self.raw)
        curl_slist_free_all(self.headerList)
        self.headerList = nil
        self.errorBuffer[0] = 0
    }

    /// Sets every option `transfer` needs; the transfer must outlive its time in the multi handle,
    /// since libcurl keeps pointers to it (`PRIVATE`, `WRITEDATA`, `HEADERDATA`) and its body.
    /// - Returns: `nil`, or why an option was refused.
    func prepare(_ transfer: CurlTransfer, configuration: CurlHTTPClient.Configuration) -> HTTPClientError? {
        var failure = CURLE_OK
        func check(_ code: CURLcode) {
            if failure == CURLE_OK { failure = code }
        }
        let handle = self.raw
        let context = UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque())

        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, self.errorBuffer))
        // Signals cannot be used for DNS timeouts in a threaded process.
        check(iap_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_URL, transfer.url))
        // Verification is fixed on: a receipt pipeline must not talk to an impostor.
        // HTTP/2 where the server offers it in the TLS handshake (Apple's does), else 1.1.
        // Over TLS a request waits for a connection being opened to say, in its handshake,
        // whether it multiplexes (PIPEWAIT), so that a lane's burst shares one HTTP/2
        // connection. Plain HTTP is 1.1 here, and waiting would only queue requests behind
        // a slow answer.
        check(iap_curl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS))
        if transfer.url.utf8.starts(with: "https:".utf8) {
            check(iap_curl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1))
        }
        check(iap_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        check(iap_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let caFile = configuration.caFile {
            check(iap_curl_easy_setopt_ptr(handle, CURLOPT_CAINFO, caFile))
        }
        if let userAgent = configuration.userAgent {
            check(iap_curl_easy_setopt_ptr(handle, CURLOPT_USERAGENT, userAgent))
        }
        check(iap_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, transfer.timeoutMilliseconds))
        check(iap_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, transfer.connectTimeoutMilliseconds))

        switch transfer.method {
        case .get:
            check(iap_curl_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case .head:
            check(iap_curl_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
        default:
            break
        }
        if let body = transfer.body {
            check(iap_curl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(transfer.bodyCount)))
            check(iap_curl_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, body))
        }
        if transfer.method != .get && transfer.method != .head && transfer.method != .post {
            check(iap_curl_easy_setopt_ptr(handle, CURLOPT_CUSTOMREQUEST, transfer.method.rawValue))
        }

        for line in transfer.headerLines {
            guard let list = curl_slist_append(self.headerList, line) else {
                check(CURLE_OUT_OF_MEMORY)
                break
            }
            self.headerList = list
        }
        if let headerList = self.headerList {
            check(iap_curl_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList))
        }

        check(iap_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, curlWriteBody))
        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, context))
        // The header callback has the write callback's C type, so the same shim sets it.
        check(iap_curl_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, curlWriteHeader))
        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, context))
        check(iap_curl_easy_setopt_ptr(handle, CURLOPT_PRIVATE, context))

        guard failure == CURLE_OK else {
            return HTTPClientError(curl: failure, detail: self.errorMessage)
        }
        return nil
    }
}

/// The C type of `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION` callbacks:
/// `(data, size, count, userdata) -> bytes taken`.
private typealias CurlDataCallback =
    @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int

/// `CURLOPT_WRITEFUNCTION`; `userdata` is the unretained ``CurlTransfer``, kept alive by the loop.
private let curlWriteBody: CurlDataCallback = { data, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// `CURLOPT_HEADERFUNCTION`; called once per complete header line.
private let curlWriteHeader: CurlDataCallback = { data, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}
