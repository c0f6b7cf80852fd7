import Foundation
import HTTPClient
import PipelineCore

/// How a plug-in store's client calls its store: over the pipeline's HTTP client (shared, not
/// owned), each call first booking its turn in the app's call budget that every process
/// shares; a `429` pauses that budget for all of them. Reads back of what a notice announced
/// are booked in a budget of their own (``readingNotices``), so that a flood of notices never
/// delays a purchase.
public struct StoreCalls: Sendable {
    /// The store's name, as its errors say it (`Xiaomi`).
    public let store: String
    public let http: CurlHTTPClient
    public let budgets: any CallBudgetKeeper
    public let timeout: Duration
    /// The longest a call waits in-process for its turn; past that its message is deferred.
    public let maxWait: Duration
    /// Whether its calls read back notices.
    public let forNotices: Bool
    public let now: @Sendable () -> Date

    public init(
        store: String, http: CurlHTTPClient, budgets: any CallBudgetKeeper, timeout: Duration = .seconds(10),
        maxWait: Duration = .seconds(10), forNotices: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.http = http
        self.budgets = budgets
        self.timeout = timeout
        self.maxWait = maxWait
        self.forNotices = forNotices
        self.now = now
    }

    /// These calls booked in the app's budget for notices.
    public var readingNotices: StoreCalls {
        StoreCalls(
            store: store, http: http, budgets: budgets, timeout: timeout, maxWait: maxWait, forNotices: true, now: now)
    }

    /// The app's budget `name` (`xiaomi/<appId>`) at `perSecond`; for notices, `<name>/notices`
    /// at a fifth of it, one call a second at least.
    public func budget(_ name: String, perSecond: Double) -> CallBudget {
        forNotices
            ? CallBudget(name: "\(name)/notices", limit: max(1, perSecond / 5))
            : CallBudget(name: name, limit: perSecond)
    }

    /// `request` sent once its turn in `budget` came. The answer whatever its status, but a
    /// `429`, which pauses `budget` (for `Retry-After`, a second by default) and is thrown.
    /// - Throws: ``StoreCallError``: over budget, unreachable (`unavailable`, or
    ///   `invalidRequest` for what retrying cannot mend), rate limited.
    public func send(_ request: HTTPRequest, in budget: CallBudget, call: String) async throws(StoreCallError)
        -> HTTPResponse
    {
        try await budgets.waitForTurn(in: budget, maxWait: maxWait, store: store, call: call, now: now)
        let response: HTTPResponse
        do {
            response = try await http.execute(request)
        } catch {
            // The error may name the URL, which may hold a secret (Amazon's): say only what went wrong.
            throw StoreCallError(
                error.isRetryable ? .unavailable : .invalidRequest, store: store, call: call,
                message: "\(store) could not be reached")
        }
        if response.status == 429 {
            let retryAfter = StoreCallError.retryAfter(response.header("Retry-After"))
            await budgets.pause(budget, for: retryAfter ?? .seconds(1), now: now())
            throw StoreCallError(
                .rateLimited, store: store, call: call, message: "HTTP 429", status: 429, retryAfter: retryAfter)
        }
        return response
    }
}
