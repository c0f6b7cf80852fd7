import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - The state the engine needs: transactions, bindings, tokens, accounts

extension SettlementBatch {
    /// The state for `event`, with every account it may touch, after locking what the event
    /// is about (its transaction, subscription, token and accounts): on PostgreSQL,
    /// fulfillers settling one of them at the same moment take turns, and each decides on
    /// what the other committed.
    func state(for event: SettlementEvent) async throws -> SettlementState {
        var state = SettlementState()
        if let transaction = event.transaction {
            try await lock(Self.lockKeys(of: transaction))
            state.known = try await known(transaction.transactionID)
            state.bound = try await bound(originalTransactionID: transaction.originalTransactionID)
            if let replaced = transaction.linkedOriginalTransactionID {
                state.linked = try await bound(originalTransactionID: replaced)
            }
            // The token's owner in the event's app: another app's token names none of its accounts.
            state.tokenOwner = try await tokenOwner(transaction.appAccountToken, app: event.cause?.app ?? "")
        }
        let accounts = SettlementEngine.accountsInvolved(in: event, state: state)
        try await lock(accounts.map { "account:\($0)" })
        try await loadAccounts(accounts)
        for id in accounts {
            // Only a debit weighs a balance (the negative-balance policy).
            state.accounts[id] = try await account(id, holdings: event.weighsHoldings, balances: event.mayDebit)
        }
        return state
    }

    static func lockKeys(of transaction: VerifiedTransaction) -> [String] {
        ["transaction:\(transaction.transactionID)", "subscription:\(transaction.originalTransactionID)"]
            + (transaction.linkedOriginalTransactionID.map { ["subscription:\($0)"] } ?? [])
            + (transaction.appAccountToken.map { ["token:\($0.lowercased())"] } ?? [])
    }

    /// A transaction as recorded, with its ledger entries; nil if it never was.
    func known(_ transactionID: String) async throws -> KnownTransaction? {
        if let cached = books.transactions[transactionID] { return cached }
        try await loadTransactions([transactionID])
        return books.transactions[transactionID] ?? nil
    }

    /// The subscription's first transaction that credited an account: it binds renewals.
    func bound(originalTransactionID: String) async throws -> KnownTransaction? {
        if books.subscriptions[originalTransactionID] == nil { try await loadSubscriptions([originalTransactionID]) }
        guard let first = BindingCandidate.first(books.subscriptions[originalTransactionID] ?? []) else { return nil }
        return try await known(first.transactionID)
    }

    func tokenOwner(_ token: String?, app: String) async throws -> String? {
        guard let token = token?.lowercased() else { return nil }
        if books.tokenOwners[token] == nil { try await loadTokenOwners([token]) }
        return books.tokenOwners[token]?[app]
    }

    /// Whether an account exists and, with `holdings`, what it holds, and with `balances`
    /// its balances.
    /// - Throws: ``SQLError/decoding(_:)`` naming the row, when what was asked for cannot be
    ///   read (what was not asked for may be unreadable: a grant repairs an entitlement so).
    func account(_ id: String, holdings: Bool = true, balances: Bool = true) async throws -> AccountState {
        try await loadAccounts([id])
        var account = books.accounts[id] ?? AccountState()
        if holdings, let problem = books.unreadable[id]?.holdings { throw SQLError.decoding(problem) }
        if balances, let problem = books.unreadable[id]?.balances { throw SQLError.decoding(problem) }
        if !holdings {
            account.entitlements = [:]
            account.purchasedProducts = []
        }
        if !balances { account.balances = [:] }
        return account
    }

    /// An account's balances, by currency.
    func balances(_ accountID: String) async throws -> [String: Int] {
        try await account(accountID, holdings: false).balances
    }

    // MARK: - Reading many at once

    /// Transactions with their ledger entries, one statement each for those not read yet.
    func loadTransactions(_ ids: [String]) async throws {
        let missing = Array(Set(ids.filter { books.transactions[$0] == nil }))
        guard !missing.isEmpty else { return }
        var found: [String: KnownTransaction] = [:]
        for row in try await db.rows(
            "SELECT \(Self.transactionColumns) FROM store_transactions WHERE transaction_id IN (?)", in: missing)
        {
            let transaction = try Self.transaction(row)
            found[transaction.transactionID] = transaction
        }
        for row in try await db.rows(
            "SELECT transaction_id, kind, currency, amount FROM ledger_entries WHERE transaction_id IN (?) ORDER BY id",
            in: Array(found.keys))
        {
            guard let kind = LedgerKind(rawValue: try row.get("kind")) else { continue }
            found[try row.get("transaction_id")]?.add(
                kind, Money(currency: try row.get("currency"), amount: try row.get("amount")))
        }
        for row in try await db.rows(
            "SELECT \(RevenueEntry.columns) FROM revenue_entries WHERE transaction_id IN (?) ORDER BY id",
            in: Array(found.keys))
        {
            guard let entry = try RevenueEntry(row: row) else { continue }
            found[entry.transactionID]?.add(revenue: entry)
        }
        for id in missing { books.transactions[id] = found[id] }
    }

    /// For each subscription not read yet, the transactions that credited an account.
    func loadSubscriptions(_ originalIDs: [String]) async throws {
        let missing = Array(Set(originalIDs.filter { books.subscriptions[$0] == nil }))
        guard !missing.isEmpty else { return }
        var found: [String: [BindingCandidate]] = Dictionary(uniqueKeysWithValues: missing.map { ($0, []) })
        for row in try await db.rows(
            """
            SELECT transaction_id, original_transaction_id, created_at FROM store_transactions
            WHERE original_transaction_id IN (?) AND account_id IS NOT NULL
            """, in: missing)
        {
            let candidate = BindingCandidate(
                transactionID: try row.get("transaction_id"),
                originalTransactionID: try row.get("original_transaction_id"),
                createdAt: try row.get("created_at"))
            found[candidate.originalTransactionID, default: []].append(candidate)
        }
        for (id, candidates) in found { books.subscriptions[id] = candidates }
    }

    /// Each app's owner of each token not read yet (a token is one app's; the same UUID in
    /// two apps names two accounts).
    func loadTokenOwners(_ tokens: [String]) async throws {
        let missing = Array(Set(tokens.filter { books.tokenOwners[$0] == nil }))
        guard !missing.isEmpty else { return }
        for token in missing { books.tokenOwners[token] = [:] }
        for row in try await db.rows(
            "SELECT app, token, account_id FROM app_account_tokens WHERE token IN (?)", in: missing)
        {
            books.tokenOwners[try row.get("token"), default: [:]][try row.get("app")] = try row.get("account_id")
        }
    }

    /// Accounts not read yet: whether each exists, its entitlements, balances and (when a
    /// first-purchase rule asks) the products it bought; a few statements for all of them.
    func loadAccounts(_ ids: [String]) async throws {
        let missing = Array(Set(ids.filter { books.accounts[$0] == nil }))
        guard !missing.isEmpty else { return }
        var found: [String: AccountState] = [:]
        for row in try await db.rows("SELECT id FROM accounts WHERE id IN (?)", in: missing) {
            found[try row.get("id")] = AccountState(exists: true)
        }
        let existing = Array(found.keys)
        for row in try await db.rows(
            "SELECT account_id, name, expires_at, original_transaction_id FROM entitlements WHERE account_id IN (?)",
            in: existing)
        {
            let (id, name): (String, String) = (try row.get("account_id"), try row.get("name"))
            do {
                found[id]?.entitlements[name] = EntitlementEnd(
                    expiresAt: try row.get("expires_at"), originalTransactionID: try row.get("original_transaction_id"))
            } catch SQLError.decoding(let message) {
                books.unreadable[id, default: .init()].holdings = "account \(id): entitlement \(name): \(message)"
            }
        }
        for row in try await db.rows(
            "SELECT account_id, currency, amount FROM balances WHERE account_id IN (?)", in: existing)
        {
            let (id, currency): (String, String) = (try row.get("account_id"), try row.get("currency"))
            do {
                found[id]?.balances[currency, default: 0] += try row.get("amount", as: Int.self)
            } catch SQLError.decoding(let message) {
                books.unreadable[id, default: .init()].balances = "account \(id): balance \(currency): \(message)"
            }
        }
        if !firstPurchaseProducts.isEmpty {
            // Only the products a first-purchase bonus asks about: each (account, product) is a
            // seek of store_transactions_on_account_product, whatever else the account bought
            // (reading all of it grew with every account's history).
            let products = Array(repeating: "?", count: firstPurchaseProducts.count).joined(separator: ", ")
            for row in try await db.rows(
                """
                SELECT DISTINCT account_id, catalog_product_id FROM store_transactions
                WHERE account_id IN (?) AND catalog_product_id IN (\(products))
                """, in: existing, after: firstPurchaseProducts.map { $0 as (any SQLConvertible)? })
            {
                found[try row.get("account_id")]?.purchasedProducts.insert(try row.get("catalog_product_id"))
            }
        }
        for id in missing { books.accounts[id] = found[id] ?? AccountState() }
    }

    static let transactionColumns = """
        transaction_id, original_transaction_id, product_id, state, account_id, receipt_id, notification_id,
        environment, expires_date, entitlement, quantity, app, purchase_date
        """

    static func transaction(_ row: SQLRow) throws -> KnownTransaction {
        KnownTransaction(
            transactionID: try row.get("transaction_id"), originalTransactionID: try row.get("original_transaction_id"),
            productID: try row.get("product_id"), state: TransactionState(rawValue: try row.get("state")) ?? .unpaid,
            accountID: try row.get("account_id"), receiptID: try row.get("receipt_id"),
            notificationID: try row.get("notification_id"), environment: try row.get("environment"),
            expiresDate: try row.get("expires_date"), entitlement: try row.get("entitlement"),
            quantity: try row.get("quantity"), app: try row.get("app")
        )
        .dated(try row.get("purchase_date"))
    }
}
