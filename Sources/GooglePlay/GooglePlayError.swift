import Foundation

/// Why a call to Google failed, and whether trying again later can help.
public struct GooglePlayError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The purchase token names nothing Google knows (404, 410): never retried.
        case notFound = "not_found"
        /// Google refused the request as malformed (400): never retried.
        case invalidRequest = "invalid_request"
        /// The service account may not do this (401 after a fresh token, 403): an operator's fix.
        case unauthorized
        /// Too many calls (429, or a quota): retried after ``GooglePlayError/retryAfter``.
        case rateLimited = "rate_limited"
        /// Google failed (5xx) or could not be reached: retried.
        case unavailable
        /// Not sent: the quota bucket's shared budget has no room before
        /// ``GooglePlayError/retryAfter``. Costs the message no attempt.
        case overBudget = "over_budget"
        /// Google answered something this client cannot read.
        case malformedResponse = "malformed_response"
    }

    public let code: Code
    /// What was asked, for the log: `productsv2.get`, `token`.
    public let call: String
    public let message: String
    public let status: Int?
    /// When to come back, if Google said (`Retry-After`).
    public let retryAfter: Duration?

    public init(_ code: Code, call: String, message: String, status: Int? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.call = call
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    /// Whether the same call may succeed later.
    public var isRetryable: Bool { [.rateLimited, .unavailable, .overBudget].contains(code) }

    public var description: String {
        "Google Play \(call): \(code.rawValue)" + (status.map { " (HTTP \($0))" } ?? "") + ": \(message)"
    }

    /// The error an HTTP answer means, from its status and Google's `{"error": {...}}` body.
    static func from(status: Int, body: [UInt8], retryAfter: String?, call: String) -> GooglePlayError {
        struct Envelope: Decodable {
            struct Detail: Decodable {
                var message: String?
                var status: String?
            }
            var error: Detail?
        }
        let detail = (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.error
        let message = [detail?.status, detail?.message].compactMap { $0 }.joined(separator: ": ")
        let text = message.isEmpty ? "HTTP \(status)" : String(message.prefix(300))
        let wait = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
        let code: Code =
            switch status {
            case 404, 410: .notFound
            case 401, 403: .unauthorized
            case 429: .rateLimited
            case 400...499: .invalidRequest
            default: .unavailable
            }
        return GooglePlayError(code, call: call, message: text, status: status, retryAfter: wait)
    }
}
