import Foundation
import PipelineCore
import Settlement
import Store

// The stores' methods on the database itself, for tests only: a test reaches every
// aggregate of one temporary file without building each store by hand.
extension SQLDatabase {
    @discardableResult public func archive(_ letters: [DeadLetter], catalog: Catalog, now: Date) async throws
        -> [VerdictResult?]
    {
        try await DeadLetterStore(self).archive(letters, catalog: catalog, now: now)
    }

    @discardableResult public func deadLetter(id: String) async throws -> DeadLetter? {
        try await DeadLetterStore(self).deadLetter(id: id)
    }

    @discardableResult public func deadLetters(receiptID: String) async throws -> [DeadLetter] {
        try await DeadLetterStore(self).deadLetters(receiptID: receiptID)
    }

    @discardableResult public func deadLetters(_ query: DeadLetterQuery, limit: Int = 500) async throws -> [DeadLetter]
    {
        try await DeadLetterStore(self).deadLetters(query, limit: limit)
    }

    @discardableResult public func deadLetterGroups(_ query: DeadLetterQuery) async throws -> [DeadLetterGroup] {
        try await DeadLetterStore(self).deadLetterGroups(query)
    }

    @discardableResult public func deadLetterIDs(_ query: DeadLetterQuery) async throws -> [String] {
        try await DeadLetterStore(self).deadLetterIDs(query)
    }

    @discardableResult public func beginReplay(id: String, by operatorName: String, now: Date) async throws
        -> DeadLetter
    {
        try await DeadLetterStore(self).beginReplay(id: id, by: operatorName, now: now)
    }

    @discardableResult public func beginReplays(ids: [String], by operatorName: String, now: Date) async throws -> (
        begun: [DeadLetter], refused: [(id: String, error: DeadLetterError)]
    ) {
        try await DeadLetterStore(self).beginReplays(ids: ids, by: operatorName, now: now)
    }

    public func finishReplay(id: String, by operatorName: String, now: Date) async throws {
        try await DeadLetterStore(self).finishReplay(id: id, by: operatorName, now: now)
    }

    public func finishReplays(ids: [String], by operatorName: String, now: Date) async throws {
        try await DeadLetterStore(self).finishReplays(ids: ids, by: operatorName, now: now)
    }

    public func abortReplay(id: String, now: Date) async throws {
        try await DeadLetterStore(self).abortReplay(id: id, now: now)
    }

    public func abortReplays(ids: [String], now: Date) async throws {
        try await DeadLetterStore(self).abortReplays(ids: ids, now: now)
    }

    @discardableResult public func discard(id: String, by operatorName: String, reason: String, now: Date) async throws
        -> DeadLetter
    {
        try await DeadLetterStore(self).discard(id: id, by: operatorName, reason: reason, now: now)
    }

    @discardableResult public func discard(ids: [String], by operatorName: String, reason: String, now: Date)
        async throws -> (discarded: [DeadLetter], refused: [(id: String, error: DeadLetterError)])
    {
        try await DeadLetterStore(self).discard(ids: ids, by: operatorName, reason: reason, now: now)
    }

    @discardableResult public func createOrder(_ request: NewOrder, catalog: Catalog, lifetime: Duration, now: Date)
        async throws -> OrderOutcome
    {
        try await OrderStore(self).createOrder(request, catalog: catalog, lifetime: lifetime, now: now)
    }

    @discardableResult public func cancelOrder(id: String, accountID: String?, reason: String?, now: Date) async throws
        -> CancelOutcome
    {
        try await OrderStore(self).cancelOrder(id: id, accountID: accountID, reason: reason, now: now)
    }

    @discardableResult public func order(id: String, now: Date) async throws -> OrderDetails? {
        try await OrderStore(self).order(id: id, now: now)
    }

    @discardableResult public func offers(accountID: String, catalog: Catalog, now: Date) async throws -> [ProductOffer]
    {
        try await OrderStore(self).offers(accountID: accountID, catalog: catalog, now: now)
    }

    @discardableResult public func bindingConflicts(involving id: String? = nil, limit: Int = 100) async throws
        -> [BindingConflictDetails]
    {
        try await OrderStore(self).bindingConflicts(involving: id, limit: limit)
    }

    @discardableResult public func scheduleSubscriptionChecks(
        catalog: Catalog, lead: Duration, lag: Duration, horizon: Duration = .seconds(86_400), now: Date
    ) async throws -> Int {
        try await SubscriptionStore(self).scheduleSubscriptionChecks(
            catalog: catalog, lead: lead, lag: lag, horizon: horizon, now: now)
    }

    @discardableResult public func claimDueSubscriptionChecks(now: Date, limit: Int) async throws
        -> [SubscriptionCheckDetails]
    {
        try await SubscriptionStore(self).claimDueSubscriptionChecks(now: now, limit: limit)
    }

    public func markSubscriptionChecksPublished(_ ids: [String], at now: Date) async throws {
        try await SubscriptionStore(self).markSubscriptionChecksPublished(ids, at: now)
    }

    @discardableResult public func subscriptionChecks(originalTransactionID: String) async throws
        -> [SubscriptionCheckDetails]
    {
        try await SubscriptionStore(self).subscriptionChecks(originalTransactionID: originalTransactionID)
    }
}

// The stores that run on both backends.
extension SQLDatabase {
    @discardableResult public func audit() async throws -> [AuditFinding] {
        try await LedgerStore(self).audit()
    }

    @discardableResult public func account(id: String, ledgerLimit: Int = 50) async throws -> AccountDetails? {
        try await LedgerStore(self).account(id: id, ledgerLimit: ledgerLimit)
    }

    @discardableResult public func receipt(id: String) async throws -> ReceiptDetails? {
        try await ReceiptStore(self).receipt(id: id)
    }

    @discardableResult public func receiptStatusCounts() async throws -> [ReceiptStatus: Int] {
        try await ReceiptStore(self).receiptStatusCounts()
    }

    @discardableResult public func notificationStatusCounts() async throws -> [NotificationStatus: Int] {
        try await ReceiptStore(self).notificationStatusCounts()
    }

    @discardableResult public func searchReceipts(_ text: String, limit: Int = 100) async throws -> [ReceiptSearchHit] {
        try await ReceiptStore(self).searchReceipts(text, limit: limit)
    }

    @discardableResult public func throughput(since moment: Date) async throws -> Throughput {
        try await ReceiptStore(self).throughput(since: moment)
    }

    @discardableResult public func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date) async throws
        -> [VerdictResult]
    {
        try await SettlementStore(self).apply(verdicts, catalog: catalog, now: now)
    }

    /// An operator's adjustment, recorded (a fresh idempotency key each call).
    @discardableResult public func adjust(
        _ accountID: String, _ currency: String, _ amount: Int, reason: String, by operatorName: String = "tests",
        catalog: Catalog, now: Date
    ) async throws -> AdjustmentStore.Record {
        try await AdjustmentStore(self).apply(
            .init(
                accountID: accountID, change: .currency(currency, amount: amount), reason: reason,
                operatorName: operatorName, idempotencyKey: UUID().uuidString),
            catalog: catalog, now: now)
    }

    @discardableResult public func acceptNotification(id: String, payload: String, payloadHash: String, now: Date)
        async throws -> (
            id: String, created: Bool
        )
    {
        try await AppleNotificationStore(self).acceptNotification(
            id: id, payload: payload, payloadHash: payloadHash, now: now)
    }

    @discardableResult public func notification(id: String) async throws -> NotificationDetails? {
        try await AppleNotificationStore(self).notification(id: id)
    }

    @discardableResult public func consumptionRequests() async throws -> [ConsumptionRequest] {
        try await AppleNotificationStore(self).consumptionRequests()
    }
}
