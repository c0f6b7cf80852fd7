import Database
import Foundation
import PipelineCore
import Settlement

/// What a batch of verdicts knows of the books: the rows read for it, with every change
/// its verdicts made on top, and those changes waiting to be written.
///
/// A value: the applier keeps a copy before each verdict and puts it back when the verdict
/// is refused, as a savepoint would. Nothing reaches the database before the batch ends.
struct SettlementBooks {
    /// Transactions by id, with their ledger entries; nil: known not to exist.
    var transactions: [String: KnownTransaction?] = [:]
    /// Per original transaction id, the transactions that credited an account (the
    /// binding is the first of them); a subscription missing here was not read yet.
    var subscriptions: [String: [BindingCandidate]] = [:]
    /// appAccountToken → each app's account behind it (a token is one app's: another app may
    /// hold the same UUID); a token missing here was not read yet.
    var tokenOwners: [String: [String: String]] = [:]
    /// Accounts with what they hold (entitlements, products bought) and their balances.
    var accounts: [String: AccountState] = [:]
    var receipts: [String: SettlingReceipt?] = [:]
    var notifications: [String: NotificationRow?] = [:]
    var checks: [String: SubscriptionCheck?] = [:]
    var orders: [String: Order?] = [:]
    /// notificationUUID → each app's first notification applied with it (two apps' stores
    /// may number theirs alike); a UUID missing here was not read yet.
    var appliedNotifications: [String: [String: NotificationRow]] = [:]
    /// Accounts with a stored value the program cannot read, and what it is: a decision
    /// that needs it fails naming it; one that does not (an operator's grant) goes ahead.
    var unreadable: [String: Unreadable] = [:]
    /// What the batch changed, to be written when it ends.
    var writes = PendingWrites()

    struct Unreadable {
        var holdings: String?
        var balances: String?
    }
}

/// A transaction that credited an account, as the binding of its subscription is chosen.
struct BindingCandidate: Hashable {
    var transactionID: String
    var originalTransactionID: String
    var createdAt: Date

    /// The subscription's first transaction that credited an account: its original one if
    /// it did, else the earliest written; ties go to the smaller id (Apple's ids grow).
    static func first(_ candidates: [BindingCandidate]) -> BindingCandidate? {
        candidates.min { a, b in
            let (aOriginal, bOriginal) = (
                a.transactionID == a.originalTransactionID, b.transactionID == b.originalTransactionID
            )
            if aOriginal != bOriginal { return aOriginal }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            if a.transactionID.count != b.transactionID.count { return a.transactionID.count < b.transactionID.count }
            return a.transactionID < b.transactionID
        }
    }
}

// MARK: - Effects on the books

extension SettlementBooks {
    /// Applies an effect the engine decided: to what the batch sees, and to what it writes.
    mutating func apply(_ effect: SettlementEffect, now: Date) throws {
        switch effect {
        case .openAccount(let id):
            accounts[id, default: AccountState()].exists = true
            writes.openAccount(id)
        case .recordTransaction(let record):
            transactions[record.transactionID] = KnownTransaction(
                transactionID: record.transactionID, originalTransactionID: record.originalTransactionID,
                productID: record.productID, state: record.state, accountID: record.accountID,
                receiptID: record.receiptID, notificationID: record.notificationID, environment: record.environment,
                expiresDate: record.expiresDate, entitlement: record.entitlement, quantity: record.quantity,
                app: record.app
            ).dated(record.purchaseDate)
            if let accountID = record.accountID {
                subscriptions[record.originalTransactionID]?.append(
                    BindingCandidate(
                        transactionID: record.transactionID, originalTransactionID: record.originalTransactionID,
                        createdAt: now))
                if let product = record.catalogProductID { accounts[accountID]?.purchasedProducts.insert(product) }
            }
            writes.record(record)
        case .updateTransaction(let id, let state, let cancellationDate):
            transactions[id]??.state = state
            writes.update(id, state: state, cancellationDate: cancellationDate)
        case .forgetTransaction(let id):
            if let original = transactions[id]??.originalTransactionID {
                subscriptions[original]?.removeAll { $0.transactionID == id }
            }
            transactions[id] = .some(nil)
            writes.forget(id)
        case .post(let posting):
            if let id = posting.transactionID {
                transactions[id]??.add(posting.kind, Money(currency: posting.currency, amount: posting.amount))
            }
            accounts[posting.accountID]?.balances[posting.currency, default: 0] += posting.amount
            writes.post(posting)
        case .setEntitlement(let accountID, let name, let end):
            accounts[accountID]?.entitlements[name] = end
            writes.setEntitlement(accountID: accountID, name: name, end: end)
        case .recordConflict(let conflict):
            writes.conflicts.append(conflict)
        case .flagAccount(let flag):
            writes.flags.append(flag)
        case .closeOrder(let closing):
            if var order = orders[closing.orderID] ?? nil {
                order.status = closing.matches ? .fulfilled : .mismatched
                order.closedAt = now
                order.closeReason = closing.reason
                order.receiptID = closing.receiptID
                order.transactionID = closing.transactionID
                order.creditedProductID = closing.creditedProductID
                orders[closing.orderID] = order
            }
            writes.closeOrder(closing)
        case .send(let webhook):
            writes.outbox.append(OutboxEntry(webhook, now: now))
        case .recordRevenue(let entry):
            transactions[entry.transactionID]??.add(revenue: entry)
            writes.revenue.append(entry)
        }
    }
}
