import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Builders for the table-driven decision tests: known transactions, accounts, and the
/// exact records, postings and webhooks the engine is expected to decide.
extension EngineFixture {
    static let day: TimeInterval = 86_400
    /// The engine's clock in these tests: one day after every purchase (`t0`).
    static let now = t0.addingTimeInterval(day)

    static func at(days: Double) -> Date { t0.addingTimeInterval(days * day) }

    /// Decides `event` with the fixture's catalog (or `engine`) at `now`.
    static func decide(
        _ event: SettlementEvent, _ state: SettlementState = SettlementState(), now: Date = now,
        engine: SettlementEngine = engine
    ) throws -> Decision {
        try engine.decide(event, state: state, now: now)
    }

    /// The refusal `event` gets, or nil when the engine decides it.
    static func refusal(
        _ event: SettlementEvent, _ state: SettlementState = SettlementState(), engine: SettlementEngine = engine
    ) -> SettlementRefusal? {
        do {
            _ = try engine.decide(event, state: state, now: now)
            return nil
        } catch {
            return error
        }
    }

    /// A transaction recorded before; by default a coins purchase credited to `a1` by `r0`.
    static func known(
        _ id: String = "t1", product: String = coins, original: String? = nil, state: TransactionState = .credited,
        account: String? = "a1", receipt: String? = "r0", expires: Date? = nil, entitlement: String? = nil,
        purchase: Money? = Money(currency: "coins", amount: 100), debit: Money? = nil, reversed: Bool = false,
        writtenOff: Money? = nil, steps: Int? = nil, quantity: Int = 1, app: String = ""
    ) -> KnownTransaction {
        KnownTransaction(
            transactionID: id, originalTransactionID: original ?? id, productID: product, state: state,
            accountID: account, receiptID: receipt, expiresDate: expires, entitlement: entitlement,
            purchase: purchase, debit: debit, writtenOff: writtenOff, reversed: reversed, quantity: quantity,
            debitSteps: steps, app: app)
    }

    /// A subscription period credited to `account`, granting `vip` (no ledger money).
    static func knownVIP(
        _ id: String = "s1", original: String = "s1", state: TransactionState = .credited, account: String? = "a1",
        expires: Date? = at(days: 30), debit: Money? = nil
    ) -> KnownTransaction {
        known(
            id, product: vip, original: original, state: state, account: account, expires: expires,
            entitlement: "vip", purchase: nil, debit: debit)
    }

    /// An account holding `vip` until `vipUntil` (`.some(nil)`: for ever; nil: no vip).
    static func holder(vipUntil: Date?? = nil, vipOriginal: String? = "s1", purchased: Set<String> = [])
        -> AccountState
    {
        var entitlements: [String: EntitlementEnd] = [:]
        if let end = vipUntil {
            entitlements["vip"] = EntitlementEnd(expiresAt: end, originalTransactionID: vipOriginal)
        }
        return AccountState(exists: true, entitlements: entitlements, purchasedProducts: purchased)
    }

    /// The row the engine records for `transaction` first seen by `cause`.
    static func record(
        _ transaction: VerifiedTransaction, cause: Cause, state: TransactionState = .credited, account: String? = nil,
        cancelled: Date? = nil, entitlement: String? = nil, catalogProduct: String? = nil, order: String? = nil,
        binding: BindingPath? = nil
    ) -> TransactionRecord {
        TransactionRecord(
            app: cause.app, transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, quantity: transaction.quantity, environment: cause.environment,
            receiptID: cause.receiptID, notificationID: cause.notificationID, accountID: account,
            purchaseDate: transaction.purchaseDate, expiresDate: transaction.expiresDate,
            cancellationDate: cancelled ?? transaction.cancellationDate, state: state, entitlement: entitlement,
            catalogProductID: catalogProduct, orderID: order, binding: binding)
    }

    /// The row of a purchase credited to `account` by `cause`, as the catalog resolves it.
    static func creditedRecord(
        _ transaction: VerifiedTransaction, cause: Cause, account: String, binding: BindingPath,
        entitlement: String? = nil, catalogProduct: String? = nil, order: String? = nil
    ) -> TransactionRecord {
        record(
            transaction, cause: cause, account: account, entitlement: entitlement,
            catalogProduct: catalogProduct ?? transaction.productID, order: order, binding: binding)
    }

    /// A ledger posting; a debit or write-off is its transaction's first take-back unless `step` says.
    static func posting(
        _ account: String, _ currency: String, _ amount: Int, _ kind: LedgerKind, cause: Cause, transaction: String?,
        step: Int? = nil
    ) -> SettlementEffect {
        let taken = [.refund, .revoke, .writeOff].contains(kind)
        return .post(
            LedgerPosting(
                accountID: account, currency: currency, amount: amount, kind: kind, receiptID: cause.receiptID,
                notificationID: cause.notificationID, transactionID: transaction, step: step ?? (taken ? 1 : 0)))
    }

    /// A transaction event's webhook (`purchase.refunded`, `subscription.renewed`, ...).
    static func transactionWebhook(
        _ type: WebhookType, to account: String, receipt: String?, notification: String?, transaction: String,
        original: String? = nil, product: String = coins, currency: String? = nil, amount: Int? = nil,
        entitlement: String? = nil, expiresAt: Date? = nil, uuid: String? = nil, balance: Int? = nil,
        writtenOff: Int? = nil
    ) -> SettlementEffect {
        .send(
            Webhook(
                type: type, accountID: account, receiptID: receipt, notificationID: notification,
                data: .transaction(
                    TransactionEventData(
                        transactionID: transaction, originalTransactionID: original ?? transaction, productID: product,
                        currency: currency, amount: amount, entitlement: entitlement, expiresAt: expiresAt,
                        notificationUUID: uuid, balance: balance, writtenOff: writtenOff))))
    }

    /// An account holding `balances`, for the decisions that debit.
    static func payer(_ balances: [String: Int]) -> AccountState {
        AccountState(exists: true, balances: balances)
    }

    /// A named case of a table, shown by its name in the test report.
    struct Named<Value: Sendable>: Sendable, CustomTestStringConvertible {
        var name: String
        var value: Value
        var testDescription: String { name }
        init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }
}
