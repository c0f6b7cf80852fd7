import Foundation

/// Why a call to Stripe failed, and whether trying again later can help.
public struct StripeError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The object does not exist (404): never retried.
        case notFound = "not_found"
        /// Stripe refused the request (400, 402, 409, ...): never retried.
        case invalidRequest = "invalid_request"
        /// The key is wrong or may not read this (401, 403): retried, as an operator can fix it
        /// and the payment is real all the same.
        case unauthorized
        /// Too many calls (429): retried after ``StripeError/retryAfter``.
        case rateLimited = "rate_limited"
        /// Stripe failed (5xx) or could not be reached: retried.
        case unavailable
        /// Not sent: the shared call budget has no room before ``StripeError/retryAfter``.
        case overBudget = "over_budget"
        /// Stripe answered something this client cannot read.
        case malformedResponse = "malformed_response"
    }

    public let code: Code
    /// What was asked, for the log: `checkout.sessions.retrieve`.
    public let call: String
    public let message: String
    public let status: Int?
    /// When to come back, if Stripe said (`Retry-After`).
    public let retryAfter: Duration?

    public init(_ code: Code, call: String, message: String, status: Int? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.call = call
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    public var description: String {
        "Stripe \(call): \(code.rawValue)" + (status.map { " (HTTP \($0))" } ?? "") + ": \(message)"
    }

    /// The error an HTTP answer means, from its status and Stripe's `{"error": {...}}` body.
    static func from(status: Int, body: [UInt8], retryAfter: String?, call: String) -> StripeError {
        struct Envelope: Decodable {
            struct Detail: Decodable {
                var type: String?
                var code: String?
                var message: String?
            }
            var error: Detail?
        }
        let detail = (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.error
        let message = [detail?.code ?? detail?.type, detail?.message].compactMap { $0 }.joined(separator: ": ")
        let text = message.isEmpty ? "HTTP \(status)" : String(message.prefix(300))
        let wait = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
        let code: Code =
            switch status {
            case 404: .notFound
            case 401, 403: .unauthorized
            case 429: .rateLimited
            case 400...499: .invalidRequest
            default: .unavailable
            }
        return StripeError(code, call: call, message: text, status: status, retryAfter: wait)
    }
}
