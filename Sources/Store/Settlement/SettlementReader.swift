import Foundation
import GRDB
import PipelineCore
import Settlement

/// Reads the state the settlement engine needs, inside the writer's transaction.
///
/// Every statement is prepared once per connection and cached: the fulfiller reads this
/// for every transaction it settles.
struct SettlementReader {
    let db: Database
    /// Whether any product has a first-purchase rule (else purchase histories are not read).
    let needsPurchaseHistory: Bool

    /// The state for `event`, with every account it may touch.
    func state(for event: SettlementEvent) throws -> SettlementState {
        var state = SettlementState()
        if let transaction = event.transaction {
            state.known = try known(transaction.transactionID)
            state.bound = try bound(originalTransactionID: transaction.originalTransactionID)
            state.tokenOwner = try tokenOwner(transaction.appAccountToken)
        }
        for id in SettlementEngine.accountsInvolved(in: event, state: state) {
            state.accounts[id] = try account(id)
        }
        return state
    }

    /// A transaction as recorded, with its ledger entries.
    func known(_ transactionID: String) throws -> KnownTransaction? {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Self.columns) FROM apple_transactions WHERE transaction_id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [transactionID]) else { return nil }
        return try withLedger(Self.transaction(row))
    }

    /// The subscription's first transaction that credited an account: it binds renewals.
    func bound(originalTransactionID: String) throws -> KnownTransaction? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(Self.columns) FROM apple_transactions
                WHERE original_transaction_id = ? AND account_id IS NOT NULL
                ORDER BY transaction_id = original_transaction_id DESC, created_at, rowid LIMIT 1
                """)
        guard let row = try Row.fetchOne(statement, arguments: [originalTransactionID]) else { return nil }
        return try withLedger(Self.transaction(row))
    }

    func tokenOwner(_ token: String?) throws -> String? {
        guard let token = token?.lowercased() else { return nil }
        let statement = try db.cachedStatement(sql: "SELECT account_id FROM app_account_tokens WHERE token = ?")
        return try String.fetchOne(statement, arguments: [token])
    }

    /// What an account holds: its entitlements, and the products it ever bought.
    func account(_ id: String) throws -> AccountState {
        var state = AccountState()
        state.exists =
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM accounts WHERE id = ?"), arguments: [id])
            ?? false
        guard state.exists else { return state }
        let entitlements = try db.cachedStatement(
            sql: "SELECT name, expires_at, original_transaction_id FROM entitlements WHERE account_id = ?")
        for row in try Row.fetchAll(entitlements, arguments: [id]) {
            state.entitlements[row["name"]] = EntitlementEnd(
                expiresAt: row["expires_at"], originalTransactionID: row["original_transaction_id"])
        }
        if needsPurchaseHistory {
            let products = try db.cachedStatement(
                sql: """
                    SELECT DISTINCT catalog_product_id FROM apple_transactions
                    WHERE account_id = ? AND catalog_product_id IS NOT NULL
                    """)
            state.purchasedProducts = try Set(String.fetchAll(products, arguments: [id]))
        }
        return state
    }

    /// An account's balances, by currency.
    func balances(_ accountID: String) throws -> [String: Int] {
        let statement = try db.cachedStatement(sql: "SELECT currency, amount FROM balances WHERE account_id = ?")
        var balances: [String: Int] = [:]
        for row in try Row.fetchAll(statement, arguments: [accountID]) {
            balances[row["currency"], default: 0] += row["amount"] as Int
        }
        return balances
    }

    private static let columns = """
        transaction_id, original_transaction_id, product_id, state, account_id, receipt_id, notification_id,
        environment, expires_date, entitlement
        """

    private static func transaction(_ row: Row) -> KnownTransaction {
        KnownTransaction(
            transactionID: row["transaction_id"], originalTransactionID: row["original_transaction_id"],
            productID: row["product_id"], state: TransactionState(rawValue: row["state"]) ?? .unpaid,
            accountID: row["account_id"], receiptID: row["receipt_id"], notificationID: row["notification_id"],
            environment: row["environment"], expiresDate: row["expires_date"], entitlement: row["entitlement"])
    }

    private func withLedger(_ known: KnownTransaction) throws -> KnownTransaction {
        var known = known
        let statement = try db.cachedStatement(
            sql: "SELECT kind, currency, amount FROM ledger_entries WHERE transaction_id = ? ORDER BY id")
        for row in try Row.fetchAll(statement, arguments: [known.transactionID]) {
            guard let kind = LedgerKind(rawValue: row["kind"]) else { continue }
            known.add(kind, Money(currency: row["currency"], amount: row["amount"]))
        }
        return known
    }
}
