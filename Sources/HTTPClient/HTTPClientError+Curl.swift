import CCurl

extension HTTPClientError {
    /// Classifies a failed transfer's `CURLcode`.
    ///
    /// The split that matters downstream is retryable or not: a network that misbehaves now
    /// may behave later, a request or certificate that is wrong will stay wrong.
    /// - Parameters:
    ///   - code: The result libcurl reported for the transfer.
    ///   - detail: The transfer's `CURLOPT_ERRORBUFFER` text, often more specific than
    ///     `curl_easy_strerror` (it names the host, the port, the elapsed time).
    init(curl code: CURLcode, detail: String) {
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let curlCode = Int(code.rawValue)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self.init(.timeout, message: message, curlCode: curlCode)
        case CURLE_COULDNT_CONNECT:
            self.init(.connectionRefused, message: message, curlCode: curlCode)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self.init(.dnsFailure, message: message, curlCode: curlCode)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_SHUTDOWN_FAILED:
            // The handshake broke off (reset, overload); a fresh attempt can succeed.
            self.init(.tls, isRetryable: true, message: message, curlCode: curlCode)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_USE_SSL_FAILED:
            // The certificate or our TLS setup is wrong; it will be just as wrong next time.
            self.init(.tls, isRetryable: false, message: message, curlCode: curlCode)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN,
            CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION, CURLE_SETOPT_OPTION_SYNTAX:
            self.init(.invalidRequest, message: message, curlCode: curlCode)
        default:
            self.init(.transport, message: message, curlCode: curlCode)
        }
    }
}
