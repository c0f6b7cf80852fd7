import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of Amazon's Receipt Verification Service (`verifyReceiptId`, version 1.0), or of
/// any server that speaks it (the stub store): `GET …/verifyReceiptId/developer/<secret>/user/
/// <userId>/receiptId/<receiptId>`, answered `200` with the receipt or a documented status.
///
/// Every call is booked in the app's call budget every process shares (``StoreCalls``).
public struct AmazonClient: Sendable {
    public let settings: AmazonSettings
    let calls: StoreCalls

    public init(
        settings: AmazonSettings, httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            settings: settings,
            calls: StoreCalls(store: "Amazon", http: httpClient, budgets: budgets, maxWait: settings.maxWait, now: now))
    }

    init(settings: AmazonSettings, calls: StoreCalls) {
        self.settings = settings
        self.calls = calls
    }

    /// This client with its calls booked in the app's budget for notices.
    var readingNotices: AmazonClient { AmazonClient(settings: settings, calls: calls.readingNotices) }

    /// The budget its calls are booked in: `amazon/<package>`, or a fifth of it for notices.
    public var budget: CallBudget { calls.budget("amazon/\(settings.packageName)", perSecond: settings.callsPerSecond) }

    var now: @Sendable () -> Date { calls.now }

    /// What RVS says of `userID`'s receipt `receiptID`.
    /// - Throws: ``StoreCallError``: RVS's documented statuses as ``refusal(status:)`` maps them.
    public func verifyReceipt(userID: String, receiptID: String) async throws(StoreCallError) -> AmazonReceipt {
        // The URL holds the shared secret: ``StoreCalls`` names no URL in its errors.
        let response = try await calls.send(
            HTTPRequest(
                method: .get, url: settings.verifyURL(userID: userID, receiptID: receiptID),
                headers: [(name: "Accept", value: "application/json")], timeout: calls.timeout),
            in: budget, call: "verifyReceiptId")
        guard response.status == 200 else {
            throw Self.refusal(
                status: response.status, retryAfter: StoreCallError.retryAfter(response.header("Retry-After")))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: response.bodyData)) as? [String: Any],
            let receipt = AmazonReceipt(json: object)
        else { throw Self.error(.malformedResponse, "the answer is not an RVS receipt") }
        return receipt
    }

    /// RVS's documented statuses: `400` no such receipt (or not this user's), `410` a receipt
    /// no longer valid, `497` an unknown user id: final. `496` our shared secret refused (an
    /// operator's fix, retried until dead-lettered), `429` throttled, `500` and any other RVS's
    /// own trouble: retried.
    static func refusal(status: Int, retryAfter: Duration? = nil) -> StoreCallError {
        let (code, meaning): (StoreCallError.Code, String) =
            switch status {
            case 400: (.notFound, "invalid receipt id")
            case 410: (.notFound, "receipt no longer valid")
            case 496: (.unauthorized, "invalid shared secret")
            case 497: (.invalidRequest, "invalid user id")
            case 429: (.rateLimited, "too many requests")
            default: (.unavailable, "RVS's own error")
            }
        return StoreCallError(
            code, store: "Amazon", call: "verifyReceiptId", message: "HTTP \(status): \(meaning)", status: status,
            retryAfter: retryAfter)
    }

    static func error(_ code: StoreCallError.Code, _ message: String) -> StoreCallError {
        StoreCallError(code, store: "Amazon", call: "verifyReceiptId", message: message)
    }
}
