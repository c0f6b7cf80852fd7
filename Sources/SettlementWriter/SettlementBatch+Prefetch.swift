import Database
import Foundation
import PipelineCore
import Settlement

extension SettlementBatch {
    /// Locks and reads, in a few statements, what `verdicts` are about and what their
    /// decisions will ask: their receipts, notifications and checks, the transactions they
    /// carry with their subscriptions and tokens, the orders receipts name, and every account
    /// these lead to. Locks are taken before what they guard is read: first the subjects,
    /// transactions, tokens and claimants, then the accounts the reads lead to.
    func prefetch(_ verdicts: [Verdict]) async throws {
        let transactions = verdicts.flatMap { $0.transactions + ($0.notification?.transaction.map { [$0] } ?? []) }
        let uuids = verdicts.compactMap { $0.notification?.notificationUUID }
        try await lock(
            verdicts.map { "subject:\($0.receiptID)" } + transactions.flatMap(Self.lockKeys(of:))
                + uuids.map { "notification:\($0)" }
                + verdicts.compactMap { $0.accountID.isEmpty ? nil : "account:\($0.accountID)" })
        try await loadSubjects(verdicts.map(\.receiptID))
        let receipts = verdicts.compactMap { books.receipts[$0.receiptID] ?? nil }
        let checks = verdicts.compactMap { books.checks[$0.receiptID] ?? nil }
        try await loadOrders(receipts.compactMap(\.orderID))
        try await loadAppliedNotifications(uuids)
        let originals = transactions.map(\.originalTransactionID) + checks.map(\.originalTransactionID)
        try await loadSubscriptions(originals)
        let bound = originals.compactMap { BindingCandidate.first(books.subscriptions[$0] ?? [])?.transactionID }
        try await loadTransactions(transactions.map(\.transactionID) + bound)
        try await loadTokenOwners(transactions.compactMap { $0.appAccountToken?.lowercased() })

        var accounts = verdicts.map(\.accountID) + receipts.map(\.accountID) + checks.map(\.accountID)
        accounts += (transactions.map(\.transactionID) + bound).compactMap { books.transactions[$0]??.accountID }
        accounts += books.tokenOwners.values.flatMap(\.values)
        accounts += receipts.compactMap { $0.orderID.flatMap { books.orders[$0] ?? nil }?.accountID }
        let named = Array(Set(accounts.filter { !$0.isEmpty }))
        try await lock(named.map { "account:\($0)" })
        try await loadAccounts(named)
    }

    /// Applies the engine's effects to the books, reading first whatever they touch that
    /// was not read (so that what is written later starts from the stored rows).
    func apply(_ effects: [SettlementEffect]) async throws {
        var accounts: [String] = []
        var transactions: [String] = []
        var originals: [String] = []
        for effect in effects {
            switch effect {
            case .recordTransaction(let record):
                originals.append(record.originalTransactionID)
                accounts += [record.accountID].compactMap { $0 }
            case .updateTransaction(let id, _, _), .forgetTransaction(let id): transactions.append(id)
            case .post(let posting):
                accounts.append(posting.accountID)
                transactions += [posting.transactionID].compactMap { $0 }
            case .setEntitlement(let accountID, _, _), .openAccount(let accountID): accounts.append(accountID)
            case .recordRevenue(let entry): transactions.append(entry.transactionID)
            case .recordConflict, .flagAccount, .closeOrder, .send: break
            }
        }
        try await loadTransactions(transactions)
        try await loadSubscriptions(
            originals + transactions.compactMap { books.transactions[$0]??.originalTransactionID })
        try await loadAccounts(accounts)
        for effect in effects { try books.apply(effect, now: now) }
    }
}
