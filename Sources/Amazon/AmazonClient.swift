import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of Amazon's Receipt Verification Service (`verifyReceiptId`, version 1.0), or of
/// any server that speaks it (the stub store): `GET …/verifyReceiptId/developer/<secret>/user/
/// <userId>/receiptId/<receiptId>`, answered `200` with the receipt or a documented status.
///
/// Every call first books its turn in the app's call budget, shared through `budgets` by every
/// process (notices' read-backs in a budget of their own, so that a flood of notices never
/// delays a purchase); a `429` pauses it for all of them.
public struct AmazonClient: Sendable {
    public let settings: AmazonSettings
    let http: CurlHTTPClient
    let budgets: any CallBudgetKeeper
    let timeout: Duration
    let forNotices: Bool
    let now: @Sendable () -> Date

    public init(
        settings: AmazonSettings, httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        timeout: Duration = .seconds(10), forNotices: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.http = httpClient
        self.budgets = budgets
        self.timeout = timeout
        self.forNotices = forNotices
        self.now = now
    }

    /// This client with its calls booked in the app's budget for notices.
    var readingNotices: AmazonClient {
        AmazonClient(
            settings: settings, httpClient: http, budgets: budgets, timeout: timeout, forNotices: true, now: now)
    }

    /// The budget its calls are booked in: `amazon/<package>`, or a fifth of it for notices.
    public var budget: CallBudget {
        forNotices
            ? CallBudget(name: "amazon/\(settings.packageName)/notices", limit: max(1, settings.callsPerSecond / 5))
            : CallBudget(name: "amazon/\(settings.packageName)", limit: settings.callsPerSecond)
    }

    /// What RVS says of `userID`'s receipt `receiptID`.
    /// - Throws: ``StoreCallError``: RVS's documented statuses as ``refusal(status:)`` maps them.
    public func verifyReceipt(userID: String, receiptID: String) async throws(StoreCallError) -> AmazonReceipt {
        try await budgets.waitForTurn(
            in: budget, maxWait: settings.maxWait, store: "Amazon", call: "verifyReceiptId", now: now)
        let response: HTTPResponse
        do {
            response = try await http.execute(
                HTTPRequest(
                    method: .get, url: settings.verifyURL(userID: userID, receiptID: receiptID),
                    headers: [(name: "Accept", value: "application/json")], timeout: timeout))
        } catch {
            // The error names the URL, which holds the secret: say only what went wrong.
            throw Self.error(error.isRetryable ? .unavailable : .invalidRequest, "RVS could not be reached")
        }
        guard response.status == 200 else {
            let error = Self.refusal(
                status: response.status, retryAfter: StoreCallError.retryAfter(response.header("Retry-After")))
            if error.code == .rateLimited {
                await budgets.pause(budget, for: error.retryAfter ?? .seconds(1), now: now())
            }
            throw error
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
