import Foundation
import GRDB
import PipelineCore

// MARK: - Settlement: what one Apple transaction does to an account, whoever reported it

/// What caused a change: the receipt or the Apple notification being applied.
struct Cause {
    var receiptID: String?
    var notificationID: String?
    var notificationUUID: String?
}

/// What a credited transaction gave.
struct Credit {
    var currency: String?
    var amount: Int?
    var entitlement: String?
    /// The entitlement's end after the credit (nil: for ever, or no entitlement).
    var expiresAt: Date?
}

extension PipelineDatabase {
    /// The account a subscription is bound to: the account of its first transaction that
    /// credited one (the original transaction itself when it did). Renewals go there, and
    /// never to whichever account later sends a receipt that carries them.
    static func boundAccount(originalTransactionID: String, _ db: Database) throws -> String? {
        try AppleTransaction.all().bound(originalTransactionID: originalTransactionID).fetchOne(db)?.accountID
    }

    /// Records a transaction never seen before as credited to `accountID`, and credits what
    /// `product` grants: a ledger entry for a currency, the entitlement extended.
    /// `bonus` (a first purchase's) is added to the grant's amount in the same entry.
    static func credit(
        _ transaction: VerifiedTransaction, to accountID: String, product: Product, bonus: Grant? = nil,
        environment: String?, cause: Cause, binding: Binding? = nil, orderID: String? = nil, now: Date,
        _ db: Database
    ) throws -> Credit {
        var record = AppleTransaction(
            transaction, environment: environment, cause: cause, accountID: accountID, state: .credited, now: now)
        record.entitlement = product.entitlement
        record.catalogProductID = product.productID
        record.orderID = orderID
        record.binding = binding?.path
        try record.insert(db)

        var credit = Credit()
        if let grant = product.grant {
            let (perUnit, overflow) = grant.amount.multipliedReportingOverflow(by: record.quantity)
            let (amount, bonusOverflow) = perUnit.addingReportingOverflow(bonus?.amount ?? 0)
            guard !overflow, !bonusOverflow else {
                throw InvalidVerdict(
                    reason: "transaction \(transaction.transactionID): quantity \(record.quantity) is absurd")
            }
            try LedgerEntry.post(
                db, accountID: accountID, currency: grant.currency, amount: amount, kind: .purchase,
                receiptID: cause.receiptID, notificationID: cause.notificationID,
                transactionID: transaction.transactionID, now: now)
            credit.currency = grant.currency
            credit.amount = amount
        }
        if let name = product.entitlement {
            let entitlement = try Entitlement.extend(
                db, accountID: accountID, name: name, until: transaction.expiresDate,
                originalTransactionID: transaction.originalTransactionID, now: now)
            credit.entitlement = name
            credit.expiresAt = entitlement.expiresAt
        }
        return credit
    }

    /// What ``takeBack(_:kind:at:environment:cause:now:_:)`` did.
    enum TakeBack {
        /// The credit was taken back from this account.
        case debited(accountID: String)
        /// It had been refunded or revoked before (perhaps since reversed): nothing changed.
        case alreadyTakenBack(accountID: String?)
        /// It never credited anything: now recorded as refunded, so that it never will.
        case recordedBeforeCredit
    }

    /// Apple refunded (`kind` `.refund`) or revoked (`.revoke`) a transaction: takes back
    /// exactly what it credited, from the account it credited, once: a debit of its
    /// purchase entry, and the entitlement it granted ends at `revokedAt` (or `now`).
    /// A `purchase.refunded` event goes to that account.
    static func takeBack(
        _ transaction: VerifiedTransaction, kind: LedgerKind, at revokedAt: Date?, environment: String?,
        cause: Cause, now: Date, _ db: Database
    ) throws -> TakeBack {
        precondition(kind == .refund || kind == .revoke)
        let state: AppleTransaction.State = kind == .revoke ? .revoked : .refunded
        let end = min(revokedAt ?? now, now)
        guard var known = try AppleTransaction.fetchOne(db, id: transaction.transactionID) else {
            var record = AppleTransaction(
                transaction, environment: environment, cause: cause, accountID: nil, state: state, now: now)
            record.cancellationDate = end
            try record.insert(db)
            return .recordedBeforeCredit
        }
        guard known.state == .credited, let accountID = known.accountID else {
            if known.state == .unpaid {
                known.state = state
                known.cancellationDate = end
                known.updatedAt = now
                try known.update(db)
                return .recordedBeforeCredit
            }
            return .alreadyTakenBack(accountID: known.accountID)
        }
        // Refunded once already and the refund reversed since: a transaction is debited once.
        guard try LedgerEntry.all().filter(transactionID: known.id, kinds: [.refund, .revoke]).fetchCount(db) == 0
        else {
            return .alreadyTakenBack(accountID: accountID)
        }

        var event = TransactionEventData(known, notificationUUID: cause.notificationUUID)
        if let purchase = try LedgerEntry.all().filter(transactionID: known.id, kinds: [.purchase]).fetchOne(db) {
            try LedgerEntry.post(
                db, accountID: purchase.accountID, currency: purchase.currency, amount: -purchase.amount, kind: kind,
                receiptID: cause.receiptID, notificationID: cause.notificationID, transactionID: known.id, now: now)
            event.currency = purchase.currency
            event.amount = -purchase.amount
        }
        if let name = known.entitlement,
            let entitlement = try Entitlement.end(db, accountID: accountID, name: name, at: end, now: now)
        {
            event.entitlement = name
            event.expiresAt = entitlement.expiresAt
        }
        known.state = state
        known.cancellationDate = end
        known.updatedAt = now
        try known.update(db)
        try OutboxEntry(
            type: .purchaseRefunded, receiptID: known.receiptID, notificationID: cause.notificationID,
            accountID: accountID, data: event, now: now
        ).insert(db)
        return .debited(accountID: accountID)
    }

    /// What ``restore(_:cause:now:_:)`` did.
    enum Restore {
        /// The refund's debit was credited again to this account.
        case restored(accountID: String)
        /// Refunded before it ever credited: the refund is forgotten, so that the purchase
        /// credits when a receipt brings it.
        case refundForgotten
        /// Not refunded (or the reversal was applied before): nothing changed.
        case notRefunded(accountID: String?)
    }

    /// Apple reversed a refund: credits again what the refund took (a `refund_reversal`
    /// entry, once), grants the entitlement again, and the transaction is credited again.
    /// A `purchase.refund_reversed` event goes to the account.
    static func restore(_ transaction: VerifiedTransaction, cause: Cause, now: Date, _ db: Database) throws -> Restore {
        guard var known = try AppleTransaction.fetchOne(db, id: transaction.transactionID) else {
            return .notRefunded(accountID: nil)
        }
        guard known.state == .refunded || known.state == .revoked else {
            return .notRefunded(accountID: known.accountID)
        }
        guard try known.everCredited(db), let accountID = known.accountID else {
            try known.delete(db)
            return .refundForgotten
        }
        guard
            try LedgerEntry.all().filter(transactionID: known.id, kinds: [.refundReversal]).fetchCount(db) == 0
        else {
            return .notRefunded(accountID: accountID)
        }

        var event = TransactionEventData(known, notificationUUID: cause.notificationUUID)
        if let debit = try LedgerEntry.all().filter(transactionID: known.id, kinds: [.refund, .revoke]).fetchOne(db) {
            try LedgerEntry.post(
                db, accountID: debit.accountID, currency: debit.currency, amount: -debit.amount,
                kind: .refundReversal, receiptID: cause.receiptID, notificationID: cause.notificationID,
                transactionID: known.id, now: now)
            event.currency = debit.currency
            event.amount = -debit.amount
        }
        if let name = known.entitlement {
            let entitlement = try Entitlement.extend(
                db, accountID: accountID, name: name, until: known.expiresDate,
                originalTransactionID: known.originalTransactionID, now: now)
            event.entitlement = name
            event.expiresAt = entitlement.expiresAt
        }
        known.state = .credited
        known.cancellationDate = nil
        known.updatedAt = now
        try known.update(db)
        try OutboxEntry(
            type: .purchaseRefundReversed, receiptID: known.receiptID, notificationID: cause.notificationID,
            accountID: accountID, data: event, now: now
        ).insert(db)
        return .restored(accountID: accountID)
    }
}

extension AppleTransaction {
    /// A new row for a transaction Apple reported, first seen in `cause`.
    init(
        _ transaction: VerifiedTransaction, environment: String?, cause: Cause, accountID: String?, state: State,
        now: Date
    ) {
        self.init(
            id: transaction.transactionID, originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, quantity: max(1, transaction.quantity), environment: environment,
            receiptID: cause.receiptID, notificationID: cause.notificationID, accountID: accountID,
            purchaseDate: transaction.purchaseDate, expiresDate: transaction.expiresDate,
            cancellationDate: transaction.cancellationDate, state: state, entitlement: nil, createdAt: now,
            updatedAt: now, catalogProductID: nil, orderID: nil, binding: nil)
    }
}

/// `data` of the transaction events (`purchase.refunded`, `purchase.refund_reversed`,
/// `subscription.renewed`, `subscription.expired`). Every key is present; `amount` is
/// signed (negative for a debit); `expires_at` is the entitlement's end after the event.
struct TransactionEventData: Encodable {
    var transactionID: String
    var originalTransactionID: String
    var productID: String
    var currency: String?
    var amount: Int?
    var entitlement: String?
    var expiresAt: Date?
    var notificationUUID: String?

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case currency, amount, entitlement
        case expiresAt = "expires_at"
        case notificationUUID = "notification_uuid"
    }

    init(_ known: AppleTransaction, notificationUUID: String?) {
        transactionID = known.id
        originalTransactionID = known.originalTransactionID
        productID = known.productID
        self.notificationUUID = notificationUUID
    }

    init(_ transaction: VerifiedTransaction, credit: Credit, notificationUUID: String? = nil) {
        transactionID = transaction.transactionID
        originalTransactionID = transaction.originalTransactionID
        productID = transaction.productID
        currency = credit.currency
        amount = credit.amount
        entitlement = credit.entitlement
        expiresAt = credit.expiresAt
        self.notificationUUID = notificationUUID
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionID, forKey: .transactionID)
        try container.encode(originalTransactionID, forKey: .originalTransactionID)
        try container.encode(productID, forKey: .productID)
        try container.encode(currency, forKey: .currency)
        try container.encode(amount, forKey: .amount)
        try container.encode(entitlement, forKey: .entitlement)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(notificationUUID, forKey: .notificationUUID)
    }
}
