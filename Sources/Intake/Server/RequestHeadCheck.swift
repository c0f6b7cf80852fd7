import Foundation
import NIOHTTP1

/// What a request's head must say before anything reads its body (issue 25): HTTP/1.1
/// names exactly one `Host`, and a body comes by `Content-Length` or by `chunked` alone.
/// NIO's parser takes `gzip, chunked` as chunked and would hand on the compressed bytes
/// as if plain; no handler here decodes a transfer coding.
enum RequestHeadCheck {
    /// The refusal `head` deserves, or nil to serve it.
    static func refusal(_ head: HTTPRequestHead) -> APIError? {
        if head.version != .http1_0, head.version != .http0_9, head.headers["host"].count != 1 {
            return APIError(.badRequest, code: "invalid_host", message: "HTTP/1.1 requests name exactly one Host")
        }
        let codings = head.headers["transfer-encoding"].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !codings.isEmpty, codings != ["chunked"] {
            return APIError(
                .badRequest, code: "unsupported_transfer_encoding",
                message: "the only transfer coding taken is chunked, alone")
        }
        return nil
    }

    /// What a request whose body broke off gets, as its handler reads the body (or, when
    /// nobody is left to read the answer, what ends it).
    static func brokenBody(_ error: any Error) -> APIError {
        switch error {
        case is RequestDeadline.Expired:
            APIError(.requestTimeout, code: "request_timeout", message: "the request was not sent in time")
        case let error as HTTPParserError where error == .invalidEOFState:
            APIError(.badRequest, code: "incomplete_body", message: "the connection ended before the body did")
        default:
            APIError(.badRequest, code: "malformed_request", message: "the request's body is not valid HTTP/1.1")
        }
    }
}
