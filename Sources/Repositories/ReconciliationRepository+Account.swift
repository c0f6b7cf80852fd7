import Database
import Foundation
import PipelineCore

// MARK: - One account's Apple transactions, to compare with Apple's Transaction History

extension ReconciliationRepository {
    /// An Apple transaction this pipeline recorded for an account.
    public struct AppleTransaction: Hashable, Sendable {
        public var transactionID: String
        public var originalTransactionID: String
        /// As Apple names it (`Production`, `Sandbox`), when the transaction said.
        public var environment: String?
        /// `credited`, `refunded`, `revoked` or `unpaid`.
        public var state: String
    }

    /// What reconciling one account starts from: whether it exists, its Apple transactions
    /// (those that came in an Apple receipt, signed transaction or notification), and the
    /// app account tokens it handed out.
    public struct AccountSide: Hashable, Sendable {
        public var exists: Bool
        public var transactions: [AppleTransaction]
        public var tokens: Set<String>
    }

    /// The account's side of the comparison, read in one snapshot.
    public func appleSide(of accountID: String) async throws -> AccountSide {
        try await database.snapshot { db in
            let exists = try await db.row("SELECT 1 AS found FROM accounts WHERE id = ?", [accountID]) != nil
            let rows = try await db.rows(
                """
                SELECT t.transaction_id, t.original_transaction_id, t.environment, t.state
                FROM store_transactions t
                LEFT JOIN receipts r ON r.id = t.receipt_id
                LEFT JOIN store_notifications n ON n.id = t.notification_id
                WHERE t.account_id = ? AND (r.kind IN ('legacy', 'storekit2') OR n.store = 'apple')
                ORDER BY t.created_at DESC, t.transaction_id
                """, [accountID])
            let tokens = try await db.rows("SELECT token FROM app_account_tokens WHERE account_id = ?", [accountID])
            return AccountSide(
                exists: exists,
                transactions: try rows.map { row in
                    AppleTransaction(
                        transactionID: try row.get("transaction_id"),
                        originalTransactionID: try row.get("original_transaction_id"),
                        environment: try row.get("environment"), state: try row.get("state"))
                },
                tokens: Set(try tokens.map { try $0.get("token", as: String.self).lowercased() }))
        }
    }
}
