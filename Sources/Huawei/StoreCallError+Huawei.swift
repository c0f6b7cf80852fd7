import Foundation
import StorePlugins

/// Huawei's failures as the shared ``StoreCallError``, with Huawei's `responseCode` when it
/// answered 200 with one.
extension StoreCallError {
    /// A failure of a call to Huawei.
    public static func huawei(
        _ code: Code, call: String, message: String, status: Int? = nil, responseCode: String? = nil,
        retryAfter: Duration? = nil
    ) -> StoreCallError {
        StoreCallError(
            code, store: "Huawei", call: call, message: message, status: status, responseCode: responseCode,
            retryAfter: retryAfter)
    }

    /// The error an HTTP failure means, from its status and `Retry-After` (a 404 is a
    /// request Huawei refused, not a purchase it does not know: that is a `responseCode`).
    static func from(status: Int, retryAfter: String?, call: String) -> StoreCallError {
        .huawei(
            code(status: status, notFound: []), call: call, message: "HTTP \(status)", status: status,
            retryAfter: Self.retryAfter(retryAfter))
    }

    /// The error a `responseCode` other than `0` means. Huawei's documented codes: 5 invalid
    /// parameters (or IAP not set up), 6 a critical error during the operation, 8 the user
    /// does not own the product, 9 already consumed or confirmed, 11 the account is
    /// abnormal, 12 no such order (not the product's latest); -1 and undocumented codes are
    /// taken as Huawei's own trouble and retried, as a missed credit costs more than a retry.
    /// https://developer.huawei.com/consumer/en/doc/HMSCore-References/server-error-code-0000001050166248
    static func from(responseCode: String, message: String?, call: String) -> StoreCallError {
        let text = String((message ?? "").prefix(300))
        let code: Code =
            switch responseCode {
            case "8", "9", "11", "12": .notFound
            case "5": .invalidRequest
            default: .unavailable
            }
        return .huawei(
            code, call: call, message: text.isEmpty ? "responseCode \(responseCode)" : text,
            responseCode: responseCode)
    }
}
