import Foundation

/// Why a call to Huawei failed, and whether trying again later can help.
public struct HuaweiError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Huawei does not know the purchase, or no longer lets it be read (`responseCode`
        /// 8, 9, 11, 12): never retried.
        case notFound = "not_found"
        /// Huawei refused the request as malformed (400, `responseCode` 5): never retried.
        case invalidRequest = "invalid_request"
        /// The client id or secret is refused, or a fresh token is (401, 403): an operator's fix.
        case unauthorized
        /// Too many calls (429, Huawei's flow control): retried after ``HuaweiError/retryAfter``.
        case rateLimited = "rate_limited"
        /// Huawei failed (5xx, `responseCode` -1 or 6) or could not be reached: retried.
        case unavailable
        /// Huawei answered something this client cannot read.
        case malformedResponse = "malformed_response"
    }

    public let code: Code
    /// What was asked, for the log: `orders.verify`, `token`.
    public let call: String
    public let message: String
    public let status: Int?
    /// Huawei's `responseCode`, when it gave one.
    public let responseCode: String?
    /// When to come back, if Huawei said (`Retry-After`).
    public let retryAfter: Duration?

    public init(
        _ code: Code, call: String, message: String, status: Int? = nil, responseCode: String? = nil,
        retryAfter: Duration? = nil
    ) {
        self.code = code
        self.call = call
        self.message = message
        self.status = status
        self.responseCode = responseCode
        self.retryAfter = retryAfter
    }

    /// Whether the same call may succeed later.
    public var isRetryable: Bool { [.rateLimited, .unavailable, .unauthorized, .malformedResponse].contains(code) }

    public var description: String {
        "Huawei \(call): \(code.rawValue)" + (status.map { " (HTTP \($0))" } ?? "")
            + (responseCode.map { " responseCode \($0)" } ?? "") + ": \(message)"
    }

    /// The error an HTTP failure means, from its status and `Retry-After`.
    static func from(status: Int, retryAfter: String?, call: String) -> HuaweiError {
        let wait = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
        let code: Code =
            switch status {
            case 401, 403: .unauthorized
            case 429: .rateLimited
            case 404, 400...499: .invalidRequest
            default: .unavailable
            }
        return HuaweiError(code, call: call, message: "HTTP \(status)", status: status, retryAfter: wait)
    }

    /// The error a `responseCode` other than `0` means. Huawei's documented codes: 5 invalid
    /// parameters (or IAP not set up), 6 a critical error during the operation, 8 the user
    /// does not own the product, 9 already consumed or confirmed, 11 the account is
    /// abnormal, 12 no such order (not the product's latest); -1 and undocumented codes are
    /// taken as Huawei's own trouble and retried, as a missed credit costs more than a retry.
    /// https://developer.huawei.com/consumer/en/doc/HMSCore-References/server-error-code-0000001050166248
    static func from(responseCode: String, message: String?, call: String) -> HuaweiError {
        let text = String((message ?? "").prefix(300))
        let code: Code =
            switch responseCode {
            case "8", "9", "11", "12": .notFound
            case "5": .invalidRequest
            default: .unavailable
            }
        return HuaweiError(
            code, call: call, message: text.isEmpty ? "responseCode \(responseCode)" : text,
            responseCode: responseCode)
    }
}
