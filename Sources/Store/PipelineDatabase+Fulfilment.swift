import Foundation
import GRDB
import PipelineCore

// MARK: - Fulfilment: apply verdicts to receipts, accounts and the outbox

extension PipelineDatabase {
    /// Applies a batch of verdicts in one transaction, in order.
    ///
    /// Each verdict changes its receipt (or App Store Server Notification), the accounts it
    /// touches and the outbox together, or not at all. A verdict for a receipt or
    /// notification that already ended changes nothing (it is a redelivery), so applying
    /// the same batch twice is harmless.
    ///
    /// For a receipt:
    /// - `valid`: each Apple transaction not seen before is recorded and credits an
    ///   account: a ledger entry and balance for a currency, or the entitlement extended
    ///   to the later of its current end and the transaction's. The account is the one its
    ///   subscription is bound to (the account of the first credited transaction with the
    ///   same original transaction id) if any, else the receipt's; a renewal bound to
    ///   another account is credited there (a `subscription.renewed` event) and not to
    ///   this receipt. A transaction seen before (in any receipt, of any account), refunded,
    ///   or for a product the catalog does not sell credits nothing; one that carries a
    ///   cancellation date and was credited before is debited what it credited, once
    ///   (a `purchase.refunded` event). The receipt becomes `credited` if anything was
    ///   credited to its account, else `rejected` with the most telling reason; a
    ///   `receipt.credited` or `receipt.rejected` notification is queued.
    /// - `rejected`, `dead`: the receipt ends so, with the reason; a notification is queued.
    /// - `retrying`: progress only: status, attempts and the last error.
    ///
    /// For an App Store Server Notification, see ``apply(_:to:products:now:_:)``
    /// (refunds, revocations, renewals, expiries: each once, by `notificationUUID`).
    ///
    /// - Returns: one result per verdict, in the same order.
    public func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date) throws -> [VerdictResult] {
        guard !verdicts.isEmpty else { return [] }
        return try write { db in try apply(verdicts, catalog: catalog, now: now, db) }
    }

    /// ``apply(_:catalog:now:)`` inside a transaction already open (the dead-letter archive's).
    func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date, _ db: Database) throws -> [VerdictResult] {
        return try verdicts.map { verdict in
            var result = VerdictResult.unknownReceipt(receiptID: verdict.receiptID)
            do {
                // A savepoint per verdict: a malformed one is undone alone.
                try db.inSavepoint {
                    result = try apply(verdict, catalog: catalog, now: now, db)
                    return .commit
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return .invalid(receiptID: verdict.receiptID, reason: error.message ?? "constraint failed")
            } catch let error as InvalidVerdict {
                return .invalid(receiptID: verdict.receiptID, reason: error.reason)
            }
            return result
        }
    }

    /// Finds what the verdict is about by its id: a receipt or a notification (the schema
    /// keeps their ids apart), and never takes one for the other.
    private func apply(
        _ verdict: Verdict, catalog: Catalog, now: Date, _ db: Database
    ) throws -> VerdictResult {
        if let receipt = try Receipt.fetchOne(db, id: verdict.receiptID) {
            guard verdict.notification == nil else {
                throw InvalidVerdict(reason: "a verdict about an Apple notification names receipt \(receipt.id)")
            }
            return try apply(verdict, to: receipt, catalog: catalog, now: now, db)
        }
        if let notification = try InboundNotification.fetchOne(db, id: verdict.receiptID) {
            return try apply(verdict, to: notification, catalog: catalog, now: now, db)
        }
        if let check = try SubscriptionCheck.fetchOne(db, id: verdict.receiptID) {
            return try apply(verdict, to: check, catalog: catalog, now: now, db)
        }
        return .unknownReceipt(receiptID: verdict.receiptID)
    }

    private func apply(
        _ verdict: Verdict, to receipt: Receipt, catalog: Catalog, now: Date, _ db: Database
    ) throws -> VerdictResult {
        var receipt = receipt
        guard !receipt.status.isFinal else {
            return .alreadyFinal(receiptID: receipt.id, status: receipt.status)
        }
        guard let outcome = verdict.outcome else {
            return .unknownOutcome(receiptID: receipt.id, outcome: verdict.rawOutcome)
        }
        receipt.attempts = max(receipt.attempts, verdict.attempts)
        receipt.environment = verdict.environment ?? receipt.environment
        receipt.updatedAt = now

        switch outcome {
        case .valid:
            try credit(verdict, receipt: &receipt, catalog: catalog, now: now, db)
        case .rejected:
            receipt.status = .rejected
            receipt.reason = Self.nonEmpty(verdict.reason) ?? "rejected"
            try receipt.update(db)
            try OutboxEntry(
                type: .receiptRejected, receiptID: receipt.id, accountID: receipt.accountID,
                data: EndedData(reason: receipt.reason ?? "", attempts: receipt.attempts), now: now
            ).insert(db)
        case .retrying:
            receipt.status = .retrying
            receipt.reason = Self.nonEmpty(verdict.reason) ?? receipt.reason
            try receipt.update(db)
        case .dead:
            receipt.status = .dead
            receipt.reason = Self.nonEmpty(verdict.reason) ?? "dead-lettered"
            try receipt.update(db)
            try OutboxEntry(
                type: .receiptDead, receiptID: receipt.id, accountID: receipt.accountID,
                data: EndedData(reason: receipt.reason ?? "", attempts: receipt.attempts), now: now
            ).insert(db)
        }
        return .applied(receiptID: receipt.id, status: receipt.status, reason: receipt.reason)
    }

    /// Settles every transaction of a valid receipt, then ends the receipt.
    private func credit(
        _ verdict: Verdict, receipt: inout Receipt, catalog: Catalog, now: Date, _ db: Database
    ) throws {
        try Account.ensure(db, id: receipt.accountID, now: now)
        // A legacy receipt may list one transaction twice (in_app and latest_receipt_info).
        var seen: Set<String> = []
        let transactions = verdict.transactions.filter { seen.insert($0.transactionID).inserted }
        let purchase = try OrderedPurchase(receipt: receipt, transactions: transactions, catalog: catalog, db)

        var carried: [ReceiptTransaction] = []
        var creditedAccount: String?
        var orderEvent: OrderEventData?
        for transaction in transactions {
            let order = purchase?.transactionID == transaction.transactionID ? purchase : nil
            let settled = try settle(transaction, receipt: receipt, order: order, catalog: catalog, now: now, db)
            try settled.row.insert(db)
            carried.append(settled.row)
            if settled.row.outcome == .credited { creditedAccount = creditedAccount ?? settled.accountID }
            if let event = settled.order { orderEvent = event }
        }

        if let accountID = creditedAccount {
            receipt.status = .credited
            receipt.reason = nil
            try receipt.update(db)
            let balances = try Balance.all().filter(accountID: accountID).fetchAll(db)
            try OutboxEntry(
                type: .receiptCredited, receiptID: receipt.id, accountID: accountID,
                data: CreditedData(
                    transactions: carried.map(\.carried),
                    balances: Dictionary(balances.map { ($0.currency, $0.amount) }, uniquingKeysWith: +),
                    order: orderEvent),
                now: now
            ).insert(db)
        } else {
            receipt.status = .rejected
            receipt.reason = Self.rejectionReason(carried)
            try receipt.update(db)
            try OutboxEntry(
                type: .receiptRejected, receiptID: receipt.id, accountID: receipt.accountID,
                data: EndedData(
                    reason: receipt.reason ?? "", attempts: receipt.attempts, transactions: carried.map(\.carried)),
                now: now
            ).insert(db)
        }
    }

    /// The account a verified purchase credits, by the first rule that applies:
    /// 1. a renewal of a subscription already bound: the account that first bought it,
    ///    whatever the receipt, its order or its token claim (a claim never moves a
    ///    subscription; see `binding_conflicts`);
    /// 2. the account of the order the receipt names (for the transaction that paid it);
    /// 3. the account behind the transaction's `appAccountToken`;
    /// 4. the account that submitted the receipt.
    static func bind(
        _ transaction: VerifiedTransaction, receipt: Receipt, order: Order?, _ db: Database
    ) throws -> Binding {
        if let bound = try boundAccount(originalTransactionID: transaction.originalTransactionID, db) {
            return Binding(accountID: bound, path: .originalTransaction)
        }
        if let order {
            return Binding(accountID: order.accountID, path: .order)
        }
        if let token = transaction.appAccountToken?.lowercased(),
            let owner = try AppAccountToken.fetchOne(db, key: token)
        {
            return Binding(accountID: owner.accountID, path: .appAccountToken)
        }
        return Binding(accountID: receipt.accountID, path: .submitter)
    }

    /// What settling one transaction did.
    private struct Settled {
        var row: ReceiptTransaction
        /// The account credited, when it credited one.
        var accountID: String?
        /// The order it paid, as the webhook tells it.
        var order: OrderEventData?
    }

    /// Records one Apple transaction of a valid receipt and credits it if it may be.
    private func settle(
        _ transaction: VerifiedTransaction, receipt: Receipt, order purchase: OrderedPurchase?, catalog: Catalog,
        now: Date, _ db: Database
    ) throws -> Settled {
        var settled = Settled(
            row: ReceiptTransaction(
                receiptID: receipt.id, transactionID: transaction.transactionID, productID: transaction.productID,
                outcome: .credited))
        let cause = Cause(receiptID: receipt.id)

        if let known = try AppleTransaction.fetchOne(db, id: transaction.transactionID) {
            if transaction.cancellationDate != nil, known.state == .credited {
                // Apple refunded it after an earlier receipt credited it: take the credit back, once.
                _ = try Self.takeBack(
                    transaction, kind: .refund, at: transaction.cancellationDate, environment: receipt.environment,
                    cause: cause, now: now, db)
                settled.row.outcome = .refunded
                return settled
            }
            switch known.state {
            case .credited, .unpaid: settled.row.outcome = .alreadyCredited
            case .refunded, .revoked: settled.row.outcome = .refunded
            }
            return settled
        }

        if transaction.cancellationDate != nil {
            // Recorded, so that no later receipt credits it either.
            try AppleTransaction(
                transaction, environment: receipt.environment, cause: cause, accountID: nil, state: .refunded,
                now: now
            ).insert(db)
            settled.row.outcome = .refunded
            return settled
        }
        // Apple's product decides what is credited, whatever was ordered.
        guard let resolution = catalog.resolve(appleProductID: transaction.productID, ordered: purchase?.product)
        else {
            // Not recorded: once the catalog sells the product, a resent receipt credits it.
            settled.row.outcome = .unknownProduct
            return settled
        }
        let product = resolution.product

        let binding = try Self.bind(transaction, receipt: receipt, order: purchase?.order, db)
        if binding.accountID != receipt.accountID {
            try BindingConflict(transaction, receipt: receipt, binding: binding, now: now).insert(db)
        }
        try Account.ensure(db, id: binding.accountID, now: now)
        let bonus = try Self.firstPurchaseBonus(product, accountID: binding.accountID, db)
        let credit = try Self.credit(
            transaction, to: binding.accountID, product: product, bonus: bonus, environment: receipt.environment,
            cause: cause, binding: binding, orderID: purchase?.order.id, now: now, db)

        if binding.path == .originalTransaction, binding.accountID != receipt.accountID {
            // A renewal of another account's subscription: it is theirs, whoever sent it.
            try OutboxEntry(
                type: .subscriptionRenewed, receiptID: receipt.id, accountID: binding.accountID,
                data: TransactionEventData(transaction, credit: credit), now: now
            ).insert(db)
            settled.row.outcome = .boundToAnotherAccount
            return settled
        }
        if var order = purchase?.order {
            order.status = resolution.matchesOrder ? .fulfilled : .mismatched
            order.closedAt = now
            order.closeReason = resolution.matchesOrder ? "paid" : "paid for \(product.productID) (Apple's product)"
            order.receiptID = receipt.id
            order.transactionID = transaction.transactionID
            order.creditedProductID = product.productID
            try order.update(db)
            settled.order = OrderEventData(order)
        }
        settled.accountID = binding.accountID
        settled.row.currency = credit.currency
        settled.row.amount = credit.amount
        settled.row.entitlement = credit.entitlement
        settled.row.expiresAt = credit.entitlement == nil ? nil : transaction.expiresDate
        return settled
    }

    /// The first-purchase bonus, when the account never bought the product before (a
    /// refunded purchase counts: refund and buy again earns no second bonus).
    static func firstPurchaseBonus(_ product: Product, accountID: String, _ db: Database) throws -> Grant? {
        guard let bonus = product.rules?.firstPurchase?.bonus else { return nil }
        let before = try AppleTransaction
            .filter(AppleTransaction.Columns.accountID == accountID)
            .filter(AppleTransaction.Columns.catalogProductID == product.productID)
            .fetchCount(db)
        return before == 0 ? bonus : nil
    }

    /// Why a valid receipt credited nothing: the reason that most needs a person first.
    static func rejectionReason(_ carried: [ReceiptTransaction]) -> String {
        let outcomes = Set(carried.map(\.outcome))
        // Paid for, but the catalog cannot say what to give: the catalog needs fixing.
        if outcomes.contains(.unknownProduct) { return TransactionOutcome.unknownProduct.rawValue }
        if outcomes.contains(.refunded) { return TransactionOutcome.refunded.rawValue }
        if outcomes.contains(.boundToAnotherAccount) { return TransactionOutcome.boundToAnotherAccount.rawValue }
        if outcomes.contains(.alreadyCredited) { return TransactionOutcome.alreadyCredited.rawValue }
        return "no_transactions"
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}

/// A verdict whose data cannot be applied (but broke no database constraint).
struct InvalidVerdict: Error {
    var reason: String
}

/// `data` of a `receipt.credited` webhook.
private struct CreditedData: Encodable {
    var transactions: [ReceiptDetails.CarriedTransaction]
    /// The account's balances after this receipt.
    var balances: [String: Int]
    /// The order the receipt paid, if it named one: `mismatched` when Apple's product differs.
    var order: OrderEventData?
}

/// `data` of a `receipt.rejected` or `receipt.dead` webhook.
private struct EndedData: Encodable {
    var reason: String
    var attempts: Int
    /// For a valid receipt that credited nothing: what became of each transaction.
    var transactions: [ReceiptDetails.CarriedTransaction]?
}
