import Foundation
import PipelineCore
import Settlement

/// Reads the state the settlement engine needs, inside the writer's transaction.
///
/// Before it reads, it locks what the event is about (its transaction, subscription, token
/// and accounts): on PostgreSQL, fulfillers settling one of them at the same moment take
/// turns, and each decides on what the other committed.
struct SettlementReader {
    let db: any SQLSession
    /// Whether any product has a first-purchase rule (else purchase histories are not read).
    let needsPurchaseHistory: Bool

    /// The state for `event`, with every account it may touch.
    func state(for event: SettlementEvent) async throws -> SettlementState {
        var state = SettlementState()
        if let transaction = event.transaction {
            try await db.lock(
                ["transaction:\(transaction.transactionID)", "subscription:\(transaction.originalTransactionID)"]
                    + (transaction.appAccountToken.map { ["token:\($0.lowercased())"] } ?? []))
            state.known = try await known(transaction.transactionID)
            state.bound = try await bound(originalTransactionID: transaction.originalTransactionID)
            state.tokenOwner = try await tokenOwner(transaction.appAccountToken)
        }
        let accounts = SettlementEngine.accountsInvolved(in: event, state: state)
        try await db.lock(accounts.map { "account:\($0)" })
        for id in accounts {
            state.accounts[id] = try await SQLError.reading("account \(id)") {
                var account = try await account(id, holdings: event.weighsHoldings)
                // Only a debit weighs a balance (the negative-balance policy).
                if event.mayDebit { account.balances = try await balances(id) }
                return account
            }
        }
        return state
    }

    /// A transaction as recorded, with its ledger entries.
    func known(_ transactionID: String) async throws -> KnownTransaction? {
        guard
            let row = try await db.row(
                "SELECT \(Self.columns) FROM apple_transactions WHERE transaction_id = ?", [transactionID])
        else { return nil }
        return try await withLedger(Self.transaction(row))
    }

    /// The subscription's first transaction that credited an account: it binds renewals.
    func bound(originalTransactionID: String) async throws -> KnownTransaction? {
        // Ties (one batch records with one time) go to the smaller transaction id: Apple's
        // ids grow with time.
        guard
            let row = try await db.row(
                """
                SELECT \(Self.columns) FROM apple_transactions
                WHERE original_transaction_id = ? AND account_id IS NOT NULL
                ORDER BY transaction_id = original_transaction_id DESC, created_at, length(transaction_id),
                    transaction_id
                LIMIT 1
                """, [originalTransactionID])
        else { return nil }
        return try await withLedger(Self.transaction(row))
    }

    func tokenOwner(_ token: String?) async throws -> String? {
        guard let token = token?.lowercased() else { return nil }
        return try await db.value("SELECT account_id FROM app_account_tokens WHERE token = ?", [token])
    }

    /// Whether an account exists and, with `holdings`, what it holds: its entitlements, and
    /// the products it ever bought.
    func account(_ id: String, holdings: Bool = true) async throws -> AccountState {
        var state = AccountState()
        state.exists = try await db.row("SELECT 1 AS found FROM accounts WHERE id = ?", [id]) != nil
        guard state.exists, holdings else { return state }
        let entitlements = try await db.rows(
            "SELECT name, expires_at, original_transaction_id FROM entitlements WHERE account_id = ?", [id])
        for row in entitlements {
            let name: String = try row.get("name")
            state.entitlements[name] = try SQLError.reading("entitlement \(name)") {
                EntitlementEnd(
                    expiresAt: try row.get("expires_at"), originalTransactionID: try row.get("original_transaction_id"))
            }
        }
        if needsPurchaseHistory {
            let products = try await db.rows(
                """
                SELECT DISTINCT catalog_product_id FROM apple_transactions
                WHERE account_id = ? AND catalog_product_id IS NOT NULL
                """, [id])
            state.purchasedProducts = try Set(products.map { try $0.get("catalog_product_id") })
        }
        return state
    }

    /// An account's balances, by currency.
    func balances(_ accountID: String) async throws -> [String: Int] {
        var balances: [String: Int] = [:]
        for row in try await db.rows("SELECT currency, amount FROM balances WHERE account_id = ?", [accountID]) {
            balances[try row.get("currency"), default: 0] += try row.get("amount", as: Int.self)
        }
        return balances
    }

    private static let columns = """
        transaction_id, original_transaction_id, product_id, state, account_id, receipt_id, notification_id,
        environment, expires_date, entitlement
        """

    private static func transaction(_ row: SQLRow) throws -> KnownTransaction {
        KnownTransaction(
            transactionID: try row.get("transaction_id"), originalTransactionID: try row.get("original_transaction_id"),
            productID: try row.get("product_id"), state: TransactionState(rawValue: try row.get("state")) ?? .unpaid,
            accountID: try row.get("account_id"), receiptID: try row.get("receipt_id"),
            notificationID: try row.get("notification_id"), environment: try row.get("environment"),
            expiresDate: try row.get("expires_date"), entitlement: try row.get("entitlement"))
    }

    private func withLedger(_ known: KnownTransaction) async throws -> KnownTransaction {
        var known = known
        let entries = try await db.rows(
            "SELECT kind, currency, amount FROM ledger_entries WHERE transaction_id = ? ORDER BY id",
            [known.transactionID])
        for row in entries {
            guard let kind = LedgerKind(rawValue: try row.get("kind")) else { continue }
            known.add(kind, Money(currency: try row.get("currency"), amount: try row.get("amount")))
        }
        return known
    }
}
