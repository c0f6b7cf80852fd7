import Foundation
import PipelineCore
import Settlement

/// Applies verdicts inside one write transaction: finds what each is about (a receipt, an
/// Apple notification, a subscription check), turns it into settlement events, asks the
/// engine, and stores the effects. It holds no rule of its own.
struct VerdictApplier {
    let db: any SQLSession
    let engine: SettlementEngine
    let now: Date
    var reader: SettlementReader
    let writer: EffectWriter

    init(db: any SQLSession, catalog: Catalog, now: Date) {
        self.db = db
        self.engine = SettlementEngine(catalog: catalog)
        self.now = now
        self.writer = EffectWriter(db: db, now: now)
        self.reader = SettlementReader(
            db: db, needsPurchaseHistory: catalog.products.contains { $0.rules?.firstPurchase?.bonus != nil })
    }

    /// Applies each verdict in a savepoint of its own: one the engine refuses, that breaks a
    /// constraint, holds a value that cannot be stored or meets state that cannot be read is
    /// undone alone and reported `invalid` (its message is then dead-lettered with the
    /// reason); the rest of the batch applies.
    func apply(_ verdicts: [Verdict]) async throws -> [VerdictResult] {
        var results: [VerdictResult] = []
        for verdict in verdicts { results.append(try await applyAlone(verdict)) }
        return results
    }

    private func applyAlone(_ verdict: Verdict) async throws -> VerdictResult {
        var result = VerdictResult.unknownReceipt(receiptID: verdict.receiptID)
        do {
            result = try await db.savepoint { try await apply(verdict) }
        } catch let refusal as SettlementRefusal {
            return .invalid(receiptID: verdict.receiptID, reason: refusal.reason)
        } catch SQLError.constraint(let message) {
            return .invalid(receiptID: verdict.receiptID, reason: message)
        } catch  where SQLError.blame(error) == .work {
            // A value that cannot be stored, or state that cannot be read: the same every
            // time, so the verdict is refused with the reason instead of retried for ever.
            return .invalid(receiptID: verdict.receiptID, reason: "\(error)")
        }
        return result
    }

    /// Finds what the verdict is about by its id (the schema keeps the ids of receipts and
    /// notifications apart), and never takes one for the other.
    private func apply(_ verdict: Verdict) async throws -> VerdictResult {
        let id = verdict.receiptID
        // Two fulfillers given one verdict (a redelivery) take turns; the second finds it ended.
        try await db.lock(["subject:\(id)"])
        if let receipt = try await db.record(Receipt.self, "SELECT * FROM receipts WHERE id = ?", [id]) {
            guard verdict.notification == nil else {
                throw SettlementRefusal("a verdict about an Apple notification names receipt \(receipt.id)")
            }
            return try await apply(verdict, to: receipt)
        }
        if let notification = try await db.record(
            InboundNotification.self, "SELECT * FROM apple_notifications WHERE id = ?", [id])
        {
            return try await apply(verdict, to: notification)
        }
        if let check = try await db.record(
            SubscriptionCheck.self, "SELECT * FROM subscription_checks WHERE id = ?", [id])
        {
            return try await apply(verdict, to: check)
        }
        return .unknownReceipt(receiptID: id)
    }

    /// Reads the state an event needs, lets the engine decide, stores the effects.
    func settle(_ event: SettlementEvent) async throws -> Decision {
        let decision = try await engine.decide(event, state: reader.state(for: event), now: now)
        try await writer.apply(decision.effects)
        return decision
    }

    // MARK: - Receipts

    private func apply(_ verdict: Verdict, to receipt: Receipt) async throws -> VerdictResult {
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
            try await writer.apply(
                .send(
                    ReceiptConclusion.ended(
                        ending, reason: reason, receiptID: receipt.id, accountID: receipt.accountID,
                        attempts: receipt.attempts)))
        case .settle:
            try await settle(verdict.transactions, of: &receipt)
        case .alreadyEnded, .unknownOutcome:
            break
        }
        try await db.execute(
            "UPDATE receipts SET status = ?, reason = ?, attempts = ?, environment = ?, updated_at = ? WHERE id = ?",
            [
                receipt.status.rawValue, receipt.reason, receipt.attempts, receipt.environment, writer.stamp,
                receipt.id,
            ])
        return .applied(receiptID: receipt.id, status: receipt.status, reason: receipt.reason)
    }

    /// Settles every transaction of a verified receipt, then ends the receipt.
    private func settle(_ transactions: [VerifiedTransaction], of receipt: inout Receipt) async throws {
        try await writer.apply(.openAccount(receipt.accountID))
        // A legacy receipt may list one transaction twice (in_app and latest_receipt_info).
        var seen: Set<String> = []
        let transactions = transactions.filter { seen.insert($0.transactionID).inserted }
        let order = try await orderClaim(of: receipt, transactions)
        let cause = Cause(receiptID: receipt.id, environment: receipt.environment)

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
            try await db.execute(
                """
                INSERT INTO receipt_transactions (
                    receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    receipt.id, row.transactionID, row.productID, row.outcome.rawValue, row.currency, row.amount,
                    row.entitlement, row.expiresAt,
                ])
            carried.append(row)
            decisions.append(decision)
        }
        let credited = decisions.first { $0.credit != nil }?.accountID
        var balances: [String: Int] = [:]
        if let credited { balances = try await reader.balances(credited) }
        let conclusion = ReceiptConclusion(
            receiptID: receipt.id, claimant: receipt.accountID, attempts: receipt.attempts, carried: carried,
            decisions: decisions, balances: balances)
        receipt.status = conclusion.creditedAccountID == nil ? .rejected : .credited
        receipt.reason = conclusion.reason
        try await writer.apply(.send(conclusion.webhook))
        try await owePlayAcknowledgement(receipt, carried)
    }

    /// A Play purchase credited (now or before, to any account) must be consumed or
    /// acknowledged, or Google refunds it: owed in this same transaction, so it cannot be lost.
    private func owePlayAcknowledgement(_ receipt: Receipt, _ carried: [CarriedTransaction]) async throws {
        guard receipt.kind == .googlePlay, let purchase = GooglePlayPurchase(canonicalJSON: receipt.payload),
            carried.contains(where: { [.credited, .alreadyCredited, .boundToAnotherAccount].contains($0.outcome) })
        else { return }
        try await owePlayAcknowledgement(purchase, receiptID: receipt.id)
    }

    /// Owes Google the purchase's acknowledgement, or its consumption, by what the catalog
    /// sells under its product id (once per purchase token).
    func owePlayAcknowledgement(_ purchase: GooglePlayPurchase, receiptID: String?) async throws {
        let action: GoogleAcknowledgementStore.Acknowledgement.Action =
            switch engine.catalog.resolve(storeProductID: purchase.productID)?.product.kind {
            case .consumable: .consume
            case .autoRenewable: .acknowledgeSubscription
            default: .acknowledge
            }
        try await GoogleAcknowledgementStore.enqueue(
            purchase, action: action, receiptID: receiptID, now: writer.stamp, in: db)
    }

    /// A transaction named by its id alone (Google's voided purchases name their order),
    /// completed from what was recorded of it; nil if it never was.
    func recorded(_ transactionID: String, cancelledAt: Date?) async throws -> VerifiedTransaction? {
        try await reader.known(transactionID).map {
            VerifiedTransaction(
                transactionID: $0.transactionID, originalTransactionID: $0.originalTransactionID,
                productID: $0.productID, cancellationDate: cancelledAt)
        }
    }

    /// The order the receipt names, if it is still unpaid, and the transaction that pays it.
    private func orderClaim(
        of receipt: Receipt, _ transactions: [VerifiedTransaction]
    ) async throws -> (claim: OrderClaim, payingTransactionID: String)? {
        guard let id = receipt.orderID,
            let order = try await db.record(Order.self, "SELECT * FROM orders WHERE id = ?", [id]),
            !order.status.isPaid
        else {
            return nil
        }
        let product = engine.catalog.product(order.productID)
        var candidates: [OrderPayment.Candidate] = []
        for transaction in transactions {
            let known = try await reader.known(transaction.transactionID)
            let bound = try await reader.bound(originalTransactionID: transaction.originalTransactionID)
            candidates.append(OrderPayment.Candidate(transaction: transaction, isFresh: known == nil && bound == nil))
        }
        guard let paying = OrderPayment.payingTransaction(ordered: product, among: candidates) else { return nil }
        return (
            OrderClaim(orderID: order.id, accountID: order.accountID, productID: order.productID, product: product),
            paying
        )
    }
}
