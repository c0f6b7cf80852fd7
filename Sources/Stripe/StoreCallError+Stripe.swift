import Foundation
import StorePlugins

/// Stripe's failures as the shared ``StoreCallError``. Stripe's 401 and 403 are retried by
/// its verifier, as an operator can fix the key and the payment is real all the same.
extension StoreCallError {
    /// A failure of a call to Stripe.
    public static func stripe(
        _ code: Code, call: String, message: String, status: Int? = nil, retryAfter: Duration? = nil
    ) -> StoreCallError {
        StoreCallError(code, store: "Stripe", call: call, message: message, status: status, retryAfter: retryAfter)
    }

    /// The error an HTTP answer means, from its status and Stripe's `{"error": {...}}` body.
    static func from(status: Int, body: [UInt8], retryAfter: String?, call: String) -> StoreCallError {
        .stripe(
            code(status: status, notFound: [404]), call: call,
            message: message(status: status, body: body) {
                [($0["code"] as? String) ?? ($0["type"] as? String), $0["message"] as? String]
            }, status: status, retryAfter: Self.retryAfter(retryAfter))
    }
}
