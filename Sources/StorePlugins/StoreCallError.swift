import Foundation

/// Why a call to a store's API failed, and whether trying again later can help: one shape
/// for every store's client (Google Play, Huawei, Stripe), so that verifiers, confirmations
/// and logs read them alike. Each store's module maps its own answers onto ``Code``.
public struct StoreCallError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The store does not know the purchase or object: never retried.
        case notFound = "not_found"
        /// The store refused the request as malformed: never retried.
        case invalidRequest = "invalid_request"
        /// The credentials are refused (401, 403): an operator's fix.
        case unauthorized
        /// Too many calls (429, a quota): retried after ``StoreCallError/retryAfter``.
        case rateLimited = "rate_limited"
        /// The store failed (5xx) or could not be reached: retried.
        case unavailable
        /// Not sent: the shared call budget has no room before ``StoreCallError/retryAfter``.
        /// Costs the message no attempt.
        case overBudget = "over_budget"
        /// The store answered something its client cannot read.
        case malformedResponse = "malformed_response"
    }

    public let code: Code
    /// The store as logs name it: `Google Play`, `Huawei`, `Stripe`.
    public let store: String
    /// What was asked, for the log: `productsv2.get`, `orders.verify`, `token`.
    public let call: String
    public let message: String
    public let status: Int?
    /// The store's own result code when it answers 200 with one (Huawei's `responseCode`).
    public let responseCode: String?
    /// When to come back, if the store said (`Retry-After`).
    public let retryAfter: Duration?

    public init(
        _ code: Code, store: String, call: String, message: String, status: Int? = nil, responseCode: String? = nil,
        retryAfter: Duration? = nil
    ) {
        self.code = code
        self.store = store
        self.call = call
        self.message = message
        self.status = status
        self.responseCode = responseCode
        self.retryAfter = retryAfter
    }

    /// Whether the same call may succeed later without anyone changing anything.
    public var isRetryable: Bool { [.rateLimited, .unavailable, .overBudget].contains(code) }

    public var description: String {
        "\(store) \(call): \(code.rawValue)" + (status.map { " (HTTP \($0))" } ?? "")
            + (responseCode.map { " responseCode \($0)" } ?? "") + ": \(message)"
    }

    /// A `Retry-After` header in seconds (the stores send no dates).
    public static func retryAfter(_ header: String?) -> Duration? {
        header.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
    }

    /// The code an HTTP status means; `notFound` lists the statuses the store uses for an
    /// object it does not know (others in 4xx are invalid requests).
    public static func code(status: Int, notFound: Set<Int>) -> Code {
        if notFound.contains(status) { return .notFound }
        return switch status {
        case 401, 403: .unauthorized
        case 429: .rateLimited
        case 400...499: .invalidRequest
        default: .unavailable
        }
    }

    /// The `message` of a store's `{"error": {...}}` body: `parts` picks the detail's
    /// members to show, the HTTP status when it has none; at most 300 characters.
    public static func message(
        status: Int, body: [UInt8], parts: (_ detail: [String: Any]) -> [String?]
    ) -> String {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let detail = object?["error"] as? [String: Any]
        let text = detail.map { parts($0).compactMap { $0 }.joined(separator: ": ") } ?? ""
        return text.isEmpty ? "HTTP \(status)" : String(text.prefix(300))
    }
}
