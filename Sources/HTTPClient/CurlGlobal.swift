import CCurl

/// libcurl's process-wide setup, run once before the first handle is made.
enum CurlGlobal {
    /// `curl_global_init` is not safe to race with other libcurl calls, so it runs once, lazily
    /// and thread-safely, as a static `let`.
    static let initResult: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
}
