import Database
import Foundation
import PipelineCore
import Settlement

/// Applies verdicts inside one write transaction: finds what each is about (a receipt, an
/// Apple notification, a subscription check), turns it into settlement events, asks the
/// engine, and keeps the effects in the batch's books, written together when the batch ends
/// (``SettlementBatch``). It holds no rule of its own.
struct VerdictApplier {
    let batch: SettlementBatch
    /// The default app's engine, and each other app's over its own catalog (issue 30).
    let engine: SettlementEngine
    let appEngines: [String: SettlementEngine]
    var now: Date { batch.now }

    init(db: any SQLSession, catalogs: AppCatalogs, now: Date) {
        self.engine = SettlementEngine(catalog: catalogs.defaultCatalog)
        self.appEngines = catalogs.others.mapValues { SettlementEngine(catalog: $0) }
        self.batch = SettlementBatch(
            db: db, now: now,
            firstPurchaseProducts: Set(
                catalogs.all.flatMap { $0.products.filter { $0.rules?.firstPurchase?.bonus != nil }.map(\.productID) }
            ).sorted())
    }

    /// Runs `body` with an applier on `db`, then writes what it decided.
    static func within<T>(
        _ db: any SQLSession, catalogs: AppCatalogs, now: Date, _ body: (VerdictApplier) async throws -> T
    ) async throws -> T {
        try await withRevenue(db, catalogs: catalogs, now: now, body).result
    }

    /// ``within(_:catalogs:now:_:)``, with the revenue entries it wrote.
    static func withRevenue<T>(
        _ db: any SQLSession, catalogs: AppCatalogs, now: Date, _ body: (VerdictApplier) async throws -> T
    ) async throws -> (result: T, revenue: [RevenueEntry]) {
        let applier = VerdictApplier(db: db, catalogs: catalogs, now: now)
        let result = try await body(applier)
        try await applier.batch.flush()
        return (result, applier.batch.revenueWritten)
    }

    /// ``within(_:catalogs:now:_:)`` with one catalog for every account.
    static func within<T>(
        _ db: any SQLSession, catalog: Catalog, now: Date, _ body: (VerdictApplier) async throws -> T
    ) async throws -> T {
        try await within(db, catalogs: AppCatalogs(catalog), now: now, body)
    }

    /// Applies each verdict, in order, each on the books as the ones before it left them.
    /// One the engine refuses, or that holds a value that cannot be stored or meets state
    /// that cannot be read, changes nothing (its changes are taken back from the books) and
    /// is reported `invalid` (its message is then dead-lettered with the reason); the rest
    /// apply. What they changed is written by ``SettlementBatch/flush()``.
    ///
    /// A refusal is taken back by starting again from the books as the prefetch read them
    /// and applying the verdicts that stood once more (the engine decides the same on the
    /// same books): refusals are rare, and a copy of the books before every verdict cost a
    /// copy of every table it touched, quadratic in the batch.
    func apply(_ verdicts: [Verdict]) async throws -> [VerdictResult] {
        try await batch.prefetch(verdicts)
        let read = batch.books
        var results: [VerdictResult] = []
        var standing: [Verdict] = []
        for verdict in verdicts {
            switch try await attempt(verdict) {
            case .applied(let result):
                results.append(result)
                standing.append(verdict)
            case .refused(let reason):
                batch.books = read
                for earlier in standing { _ = try await apply(earlier) }
                results.append(.invalid(receiptID: verdict.receiptID, reason: reason))
            }
        }
        return results
    }

    private enum Attempt {
        case applied(VerdictResult)
        /// Why; the books then hold part of the verdict's changes.
        case refused(String)
    }

    private func attempt(_ verdict: Verdict) async throws -> Attempt {
        do {
            return .applied(try await apply(verdict))
        } catch let refusal as SettlementRefusal {
            return .refused(refusal.reason)
        } catch  where SQLError.blame(error) == .work {
            // A value that cannot be stored, or state that cannot be read: the same every
            // time, so the verdict is refused with the reason instead of retried for ever.
            return .refused("\(error)")
        }
    }

    /// Finds what the verdict is about by its id (the schema keeps the ids of receipts and
    /// notifications apart), and never takes one for the other.
    private func apply(_ verdict: Verdict) async throws -> VerdictResult {
        let id = verdict.receiptID
        // Two fulfillers given one verdict (a redelivery) take turns; the second finds it ended.
        try await batch.lock(["subject:\(id)"])
        if let receipt = try await batch.receipt(id) {
            guard verdict.notification == nil else {
                throw SettlementRefusal("a verdict about an Apple notification names receipt \(receipt.id)")
            }
            return try await apply(verdict, to: receipt)
        }
        if let notification = try await batch.notification(id) {
            return try await apply(verdict, to: notification)
        }
        if let check = try await batch.check(id) {
            return try await apply(verdict, to: check)
        }
        return .unknownReceipt(receiptID: id)
    }

    /// Reads the state an event needs, lets the engine decide, keeps the effects.
    func settle(_ event: SettlementEvent) async throws -> Decision {
        let state = try await batch.state(for: event)
        let decision = try engine(of: event).decide(event, state: state, now: now)
        try await batch.apply(decision.effects)
        return decision
    }

    // MARK: - Receipts

    private func apply(_ verdict: Verdict, to receipt: SettlingReceipt) async throws -> VerdictResult {
        var receipt = receipt
        let step = VerdictStep(verdict, hasEnded: receipt.status.isFinal)
        switch step {
        case .alreadyEnded: return .alreadyFinal(receiptID: receipt.id, status: receipt.status)
        case .unknownOutcome(let raw): return .unknownOutcome(receiptID: receipt.id, outcome: raw)
        case .retrying, .ended, .settle: break
        }
        receipt.attempts = max(receipt.attempts, verdict.attempts)
        receipt.environment = verdict.environment ?? receipt.environment
        switch step {
        case .retrying(let reason):
            receipt.status = .retrying
            receipt.reason = reason ?? receipt.reason
        case .ended(let ending, let reason):
            receipt.status = ending == .dead ? .dead : .rejected
            receipt.reason = reason
            try await batch.apply([
                .send(
                    ReceiptConclusion.ended(
                        ending, reason: reason, receiptID: receipt.id, accountID: receipt.accountID,
                        attempts: receipt.attempts))
            ])
        case .settle:
            try await settle(verdict.transactions, of: &receipt)
        case .alreadyEnded, .unknownOutcome:
            break
        }
        batch.books.receipts[receipt.id] = receipt
        batch.books.writes.receipts[receipt.id] = receipt
        return .applied(receiptID: receipt.id, status: receipt.status, reason: receipt.reason)
    }

    /// Settles every transaction of a verified receipt, then ends the receipt.
    private func settle(_ transactions: [VerifiedTransaction], of receipt: inout SettlingReceipt) async throws {
        try await batch.apply([.openAccount(receipt.accountID)])
        // A legacy receipt may list one transaction twice (in_app and latest_receipt_info).
        var seen: Set<String> = []
        let transactions = transactions.filter { seen.insert($0.transactionID).inserted }
        let order = try await orderClaim(of: receipt, transactions)
        let cause = Cause(
            app: AppScope.key(ofStored: receipt.accountID), receiptID: receipt.id, environment: receipt.environment,
            store: StoreEvidence.store(ofReceiptKind: receipt.kind.rawValue) ?? StoreEvidence.appleStore)

        var carried: [CarriedTransaction] = []
        var decisions: [Decision] = []
        for transaction in transactions {
            let claim = order?.payingTransactionID == transaction.transactionID ? order?.claim : nil
            let decision = try await settle(
                .transactionVerified(
                    transaction,
                    source: .receipt(receiptID: receipt.id, claimant: receipt.accountID, order: claim, cause: cause)))
            let row =
                decision.credit
                ?? CarriedTransaction(
                    transactionID: transaction.transactionID, productID: transaction.productID,
                    outcome: decision.outcome ?? .alreadyCredited)
            batch.books.writes.receiptTransactions.append(ReceiptTransactionRow(receiptID: receipt.id, carried: row))
            carried.append(row)
            decisions.append(decision)
        }
        let credited = decisions.first { $0.credit != nil }?.accountID
        var balances: [String: Int] = [:]
        if let credited { balances = try await batch.balances(credited) }
        let conclusion = ReceiptConclusion(
            receiptID: receipt.id, claimant: receipt.accountID, attempts: receipt.attempts, carried: carried,
            decisions: decisions, balances: balances)
        receipt.status = conclusion.creditedAccountID == nil ? .rejected : .credited
        receipt.reason = conclusion.reason
        try await batch.apply([.send(conclusion.webhook)])
        // A plug-in store's confirmation, or Apple's Set App Account Token (a StoreKit 2
        // purchase without a token, when the Server API confirmed it).
        if let store = StoreEvidence.store(ofReceiptKind: receipt.kind.rawValue)
            ?? (receipt.kind == .storekit2 ? StoreEvidence.appleStore : nil)
        {
            for (index, transaction) in transactions.enumerated() where carried[index].outcome.isDelivered {
                oweConfirmation(
                    transaction, store: store, receiptID: receipt.id, account: decisions[index].accountID)
            }
        }
    }

    /// What the transaction's store asked for once it is credited (now or before), owed in
    /// this same transaction so that it cannot be lost (``ConfirmationRepository``), under
    /// the app of `account` (the credited one), whose stores pay it.
    func oweConfirmation(_ transaction: VerifiedTransaction, store: String, receiptID: String?, account: String?) {
        guard let payload = transaction.confirmation else { return }
        batch.books.writes.confirmations.append(
            OwedConfirmation(
                store: store, transactionID: transaction.transactionID,
                app: account.flatMap(AppScope.appID(of:)) ?? "", payload: payload, receiptID: receiptID))
    }

    /// A transaction named by its id alone (Google's voided purchases name their order),
    /// completed from what was recorded of it; nil if it never was.
    func recorded(_ transactionID: String, cancelledAt: Date?) async throws -> VerifiedTransaction? {
        try await batch.known(transactionID).map {
            VerifiedTransaction(
                transactionID: $0.transactionID, originalTransactionID: $0.originalTransactionID,
                productID: $0.productID, quantity: $0.quantity, cancellationDate: cancelledAt)
        }
    }

    /// The order the receipt names, if it is still unpaid, and the transaction that pays it.
    private func orderClaim(
        of receipt: SettlingReceipt, _ transactions: [VerifiedTransaction]
    ) async throws -> (claim: OrderClaim, payingTransactionID: String)? {
        guard let id = receipt.orderID,
            let order = try await batch.order(id),
            !order.status.isPaid
        else {
            return nil
        }
        let product = engine(forAccount: order.accountID).catalog.product(order.productID)
        var candidates: [OrderPayment.Candidate] = []
        for transaction in transactions {
            let known = try await batch.known(transaction.transactionID)
            let bound = try await batch.bound(originalTransactionID: transaction.originalTransactionID)
            candidates.append(OrderPayment.Candidate(transaction: transaction, isFresh: known == nil && bound == nil))
        }
        guard let paying = OrderPayment.payingTransaction(ordered: product, among: candidates) else { return nil }
        return (
            OrderClaim(orderID: order.id, accountID: order.accountID, productID: order.productID, product: product),
            paying
        )
    }

    // MARK: - Apps

    /// The engine over the catalog of the app of `account` (a stored id); the default app's
    /// when none is known.
    func engine(forAccount account: String?) -> SettlementEngine {
        engine(forApp: account.map(AppScope.key(ofStored:)) ?? "")
    }

    /// The engine over the catalog of the app keyed `app` (``AppScope/key``).
    func engine(forApp app: String) -> SettlementEngine {
        app.isEmpty ? engine : appEngines[app] ?? engine
    }

    /// The engine of the app `event` belongs to: its cause's (the app that proved it), or the
    /// app of the account an operator's adjustment names.
    private func engine(of event: SettlementEvent) -> SettlementEngine {
        switch event {
        case .adjustment(let adjustment): engine(forAccount: adjustment.accountID)
        case .entitlementGrant(let grant): engine(forAccount: grant.accountID)
        default: engine(forApp: event.cause?.app ?? "")
        }
    }
}
