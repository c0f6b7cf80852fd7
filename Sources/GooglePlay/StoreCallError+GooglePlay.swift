import Foundation
import StorePlugins

/// Google Play's failures as the shared ``StoreCallError``.
extension StoreCallError {
    /// A failure of a call to Google Play.
    public static func googlePlay(
        _ code: Code, call: String, message: String, status: Int? = nil, retryAfter: Duration? = nil
    ) -> StoreCallError {
        StoreCallError(code, store: "Google Play", call: call, message: message, status: status, retryAfter: retryAfter)
    }

    /// The error an HTTP answer means, from its status and Google's `{"error": {...}}` body
    /// (404 and 410: a token Google does not know).
    static func from(status: Int, body: [UInt8], retryAfter: String?, call: String) -> StoreCallError {
        .googlePlay(
            code(status: status, notFound: [404, 410]), call: call,
            message: message(status: status, body: body) { [$0["status"] as? String, $0["message"] as? String] },
            status: status, retryAfter: Self.retryAfter(retryAfter))
    }
}
