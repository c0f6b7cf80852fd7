import Foundation
import PipelineCore
import Settlement

/// An in-memory book that reads state and applies effects as the SQLite store does, so the
/// engine's rules can be driven through long sequences of events without a database.
struct LedgerModel {
    struct Row {
        var record: TransactionRecord
        var state: TransactionState
    }

    struct Entry: Hashable {
        var posting: LedgerPosting
    }

    var transactions: [String: Row] = [:]
    /// In insertion order, as `rowid` orders them.
    var transactionOrder: [String] = []
    var entries: [Entry] = []
    var balances: [String: [String: Int]] = [:]
    var entitlements: [String: [String: EntitlementEnd]] = [:]
    var accounts: Set<String> = []
    var tokens: [String: String] = [:]
    var webhooks: [Webhook] = []
    var revenue: [RevenueEntry] = []
    var conflicts: [ClaimConflict] = []
    var flags: [AccountFlag] = []

    /// What the store's reader returns for `event`.
    func state(for event: SettlementEvent) -> SettlementState {
        var state = SettlementState()
        if let transaction = event.transaction {
            state.known = known(transaction.transactionID)
            state.bound = transactionOrder.lazy.compactMap { self.transactions[$0] }
                .filter {
                    $0.record.originalTransactionID == transaction.originalTransactionID && $0.record.accountID != nil
                }
                .sorted { lhs, rhs in
                    (lhs.record.transactionID == lhs.record.originalTransactionID ? 0 : 1)
                        < (rhs.record.transactionID == rhs.record.originalTransactionID ? 0 : 1)
                }
                .first.flatMap { known($0.record.transactionID) }
            state.tokenOwner = transaction.appAccountToken.flatMap { tokens[$0.lowercased()] }
        }
        for id in SettlementEngine.accountsInvolved(in: event, state: state) {
            state.accounts[id] = AccountState(
                exists: accounts.contains(id), entitlements: entitlements[id] ?? [:],
                purchasedProducts: Set(
                    transactions.values.filter { $0.record.accountID == id }.compactMap(\.record.catalogProductID)))
            if event.mayDebit { state.accounts[id]?.balances = balances[id] ?? [:] }
        }
        return state
    }

    func known(_ id: String) -> KnownTransaction? {
        guard let row = transactions[id] else { return nil }
        var known = KnownTransaction(
            transactionID: id, originalTransactionID: row.record.originalTransactionID,
            productID: row.record.productID, state: row.state, accountID: row.record.accountID,
            receiptID: row.record.receiptID, notificationID: row.record.notificationID,
            expiresDate: row.record.expiresDate, entitlement: row.record.entitlement)
        for entry in entries where entry.posting.transactionID == id {
            known.add(entry.posting.kind, Money(currency: entry.posting.currency, amount: entry.posting.amount))
        }
        for entry in revenue where entry.transactionID == id { known.add(revenue: entry) }
        known.purchaseDate = row.record.purchaseDate
        return known
    }

    /// Applies effects as the store does, failing where its constraints would.
    mutating func apply(_ effects: [SettlementEffect]) throws {
        for effect in effects {
            switch effect {
            case .openAccount(let id):
                accounts.insert(id)
            case .recordTransaction(let record):
                guard transactions[record.transactionID] == nil else { throw ModelError("duplicate transaction") }
                transactions[record.transactionID] = Row(record: record, state: record.state)
                transactionOrder.append(record.transactionID)
            case .updateTransaction(let id, let state, _):
                guard transactions[id] != nil else { throw ModelError("update of unknown transaction \(id)") }
                transactions[id]?.state = state
            case .forgetTransaction(let id):
                transactions[id] = nil
                transactionOrder.removeAll { $0 == id }
            case .post(let posting):
                // The store's unique keys: one debit (and one write-off) per transaction and
                // step, one entry of every other kind per transaction.
                let stepped: Set<LedgerKind> = [.refund, .revoke, .writeOff]
                let debits: Set<LedgerKind> = [.refund, .revoke]
                if let id = posting.transactionID,
                    entries.contains(where: {
                        guard $0.posting.transactionID == id else { return false }
                        if debits.contains(posting.kind) {
                            return debits.contains($0.posting.kind) && $0.posting.step == posting.step
                        }
                        return $0.posting.kind == posting.kind
                            && (!stepped.contains(posting.kind) || $0.posting.step == posting.step)
                    })
                {
                    throw ModelError("second \(posting.kind) entry for \(id), step \(posting.step)")
                }
                guard accounts.contains(posting.accountID) else { throw ModelError("posting to unknown account") }
                entries.append(Entry(posting: posting))
                balances[posting.accountID, default: [:]][posting.currency, default: 0] += posting.amount
            case .setEntitlement(let accountID, let name, let end):
                entitlements[accountID, default: [:]][name] = end
            case .recordConflict(let conflict):
                conflicts.append(conflict)
            case .flagAccount(let flag):
                // The store's unique key: once per transaction and reason.
                if !flags.contains(where: { $0.transactionID == flag.transactionID && $0.reason == flag.reason }) {
                    flags.append(flag)
                }
            case .closeOrder:
                break
            case .send(let webhook):
                webhooks.append(webhook)
            case .recordRevenue(let entry):
                // The store's unique key: one entry per transaction, kind and step.
                guard
                    !revenue.contains(where: {
                        $0.transactionID == entry.transactionID && $0.kind == entry.kind && $0.step == entry.step
                    })
                else { throw ModelError("second \(entry.kind) revenue entry for \(entry.transactionID)") }
                revenue.append(entry)
            }
        }
    }
}

struct ModelError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
