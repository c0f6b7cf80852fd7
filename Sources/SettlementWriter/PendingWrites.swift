import Database
import Foundation
import PipelineCore
import Settlement

/// What a batch of verdicts changed, kept until the batch ends and then written with a few
/// statements per table (``flush(_:stamp:)``), whatever the batch's size.
///
/// Changes to one row are folded together on the way: a transaction recorded and then
/// refunded in one batch is inserted refunded; a balance moved by many postings is moved
/// once by their sum; a receipt ended is updated once, to how it ended.
struct PendingWrites {
    private(set) var accounts: [String] = []
    private var accountSet: Set<String> = []
    /// New transactions, in the order recorded, with any later change folded in.
    private(set) var transactions: [TransactionRecord] = []
    private var transactionIndex: [String: Int] = [:]
    /// Changes to transactions that were already stored.
    private(set) var transactionUpdates: [String: (state: TransactionState, cancellationDate: Date?)] = [:]
    private(set) var forgotten: Set<String> = []
    private(set) var ledger: [LedgerPosting] = []
    private(set) var balanceDeltas: [BalanceKey: Int] = [:]
    private(set) var entitlements: [EntitlementKey: EntitlementEnd] = [:]
    var conflicts: [ClaimConflict] = []
    var flags: [AccountFlag] = []
    private(set) var orderClosings: [String: OrderClosing] = [:]
    var outbox: [OutboxEntry] = []
    /// Rows the batch ended or moved on, as they end up.
    var receipts: [String: SettlingReceipt] = [:]
    var receiptTransactions: [ReceiptTransactionRow] = []
    var notifications: [String: NotificationRow] = [:]
    var checks: [String: SubscriptionCheck] = [:]
    var confirmations: [OwedConfirmation] = []
    /// Revenue entries, in the order decided.
    var revenue: [RevenueEntry] = []

    struct BalanceKey: Hashable {
        var accountID: String
        var currency: String
    }

    struct EntitlementKey: Hashable {
        var accountID: String
        var name: String
    }

    var isEmpty: Bool {
        accounts.isEmpty && transactions.isEmpty && transactionUpdates.isEmpty && forgotten.isEmpty
            && ledger.isEmpty && entitlements.isEmpty && conflicts.isEmpty && flags.isEmpty && orderClosings.isEmpty
            && outbox.isEmpty && receipts.isEmpty && receiptTransactions.isEmpty && notifications.isEmpty
            && checks.isEmpty && confirmations.isEmpty && revenue.isEmpty
    }

    mutating func openAccount(_ id: String) {
        if accountSet.insert(id).inserted { accounts.append(id) }
    }

    /// A transaction forgotten earlier in the batch stays forgotten: its stored row is
    /// deleted before the new one is inserted.
    mutating func record(_ record: TransactionRecord) {
        if let index = transactionIndex[record.transactionID] {
            transactions[index] = record
        } else {
            transactionIndex[record.transactionID] = transactions.count
            transactions.append(record)
        }
    }

    mutating func update(_ id: String, state: TransactionState, cancellationDate: Date?) {
        if let index = transactionIndex[id] {
            transactions[index].state = state
            transactions[index].cancellationDate = cancellationDate
        } else {
            transactionUpdates[id] = (state, cancellationDate)
        }
    }

    mutating func forget(_ id: String) {
        if let index = transactionIndex.removeValue(forKey: id) {
            transactions.remove(at: index)
            transactionIndex = Dictionary(
                uniqueKeysWithValues: transactions.enumerated().map { ($1.transactionID, $0) })
        }
        transactionUpdates[id] = nil
        forgotten.insert(id)
    }

    mutating func post(_ posting: LedgerPosting) {
        ledger.append(posting)
        balanceDeltas[BalanceKey(accountID: posting.accountID, currency: posting.currency), default: 0] +=
            posting.amount
    }

    mutating func setEntitlement(accountID: String, name: String, end: EntitlementEnd) {
        entitlements[EntitlementKey(accountID: accountID, name: name)] = end
    }

    mutating func closeOrder(_ closing: OrderClosing) {
        orderClosings[closing.orderID] = closing
    }
}

/// A row of `receipt_transactions`: what one transaction of a receipt came to.
struct ReceiptTransactionRow {
    var receiptID: String
    var carried: CarriedTransaction
}

/// What a plug-in store is owed for a credited purchase (``VerifiedTransaction/confirmation``).
struct OwedConfirmation {
    var store: String
    var transactionID: String
    /// The app of the credited account (`''`: the default app's).
    var app: String
    var payload: String
    var receiptID: String?
}
