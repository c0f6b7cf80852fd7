import Database
import Foundation
import Hummingbird
import Observability

/// An error answer of the intake API: `{"error": {"code", "message", "field"}}`.
///
/// `code` is machine-readable and stable; `message` is for people; `field` names the
/// request field at fault, when there is one.
public struct APIError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    public let field: String?
    /// Seconds for `Retry-After` (429, 503).
    public var retryAfter: Int?
    /// The methods for `Allow` (405).
    public var allow: [String]?

    public init(
        _ status: HTTPResponse.Status, code: String, message: String, field: String? = nil, retryAfter: Int? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow.joined(separator: ", ") }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The JSON body, also written by the connection guard for requests the router never sees.
    var body: [UInt8] {
        var error: [String: String] = ["code": code, "message": message]
        if let field { error["field"] = field }
        return Array((try? JSONSerialization.data(withJSONObject: ["error": error], options: [.sortedKeys])) ?? Data())
    }

    // MARK: The errors the API answers with

    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "missing or invalid bearer token")
    static let notFound = APIError(.notFound, code: "not_found", message: "no such resource")
    static func payloadTooLarge(limit: Int) -> APIError {
        let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
        return APIError(.contentTooLarge, code: "payload_too_large", message: "request body is larger than \(size)")
    }
    static let unsupportedMediaType = APIError(
        .unsupportedMediaType, code: "unsupported_media_type", message: "send Content-Type: application/json")
    /// Why the database did not take the work, as the client may act on it: 503 with
    /// `Retry-After`, `storage_full` when its disk is full (space must return first, so the
    /// wait is longer), `unavailable` otherwise. An ``APIError`` thrown by the work itself
    /// is answered as it is.
    static func unavailable(_ error: any Error) -> APIError {
        if let answer = error as? APIError { return answer }
        PipelineMetrics.intakeUnavailable(full: SQLError.isFull(error)).increment()
        if SQLError.isFull(error) {
            return APIError(
                .serviceUnavailable, code: "storage_full",
                message: "the database's disk is full: nothing was stored; retry later", retryAfter: 30)
        }
        return APIError(
            .serviceUnavailable, code: "unavailable", message: "the database is unavailable: nothing was stored; retry",
            retryAfter: 5)
    }

    static func rateLimited(retryAfter: Int) -> APIError {
        APIError(
            .tooManyRequests, code: "rate_limited", message: "too many requests; retry after \(retryAfter) s",
            retryAfter: retryAfter)
    }

    static func invalid(_ code: String, _ message: String, field: String? = nil) -> APIError {
        APIError(.badRequest, code: code, message: message, field: field)
    }
}
