import CCurl
import Testing

@testable import HTTPClient

/// How libcurl's result codes become retry decisions.
@Suite struct HTTPClientErrorTests {
    @Test(arguments: [
        (CURLE_OPERATION_TIMEDOUT, HTTPClientError.Code.timeout, true),
        (CURLE_COULDNT_CONNECT, .connectionRefused, true),
        (CURLE_COULDNT_RESOLVE_HOST, .dnsFailure, true),
        (CURLE_SSL_CONNECT_ERROR, .tls, true),
        (CURLE_PEER_FAILED_VERIFICATION, .tls, false),
        (CURLE_SSL_CACERT_BADFILE, .tls, false),
        (CURLE_RECV_ERROR, .transport, true),
        (CURLE_GOT_NOTHING, .transport, true),
        (CURLE_URL_MALFORMAT, .invalidRequest, false),
        (CURLE_UNSUPPORTED_PROTOCOL, .invalidRequest, false),
    ])
    func curlCode_mapsToCodeAndRetryAdvice(curl: CURLcode, code: HTTPClientError.Code, retryable: Bool) {
        let error = HTTPClientError(curl: curl, detail: "")
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
        #expect(error.curlCode == Int(curl.rawValue))
        // Without a detail message, libcurl's own description of the code is kept.
        #expect(error.message == String(cString: curl_easy_strerror(curl)))
    }

    @Test func description_namesCodeAdviceMessageAndCurlCode() {
        let error = HTTPClientError(
            curl: CURLE_OPERATION_TIMEDOUT,
            detail: "Operation timed out after 300 milliseconds"
        )
        #expect(error.description == "timeout (retryable): Operation timed out after 300 milliseconds [curl 28]")
    }

    @Test func codes_areDistinct() {
        let codes: [HTTPClientError.Code] = [
            .timeout, .connectionRefused, .dnsFailure, .tls, .transport, .invalidRequest, .responseTooLarge,
            .invalidConfiguration, .cancelled, .shutdown,
        ]
        #expect(Set(codes).count == codes.count)
    }
}
