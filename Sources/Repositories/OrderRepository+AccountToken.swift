import Database
import Foundation

extension OrderRepository {
    /// The account a transaction was credited to, and that account's app account token: its
    /// first, as an order hands out, made now if it has none. Nil when the transaction
    /// credited no account here. What Set App Account Token tells Apple.
    public func accountToken(creditedFor transactionID: String, now: Date) async throws
        -> (accountID: String, token: String)?
    {
        try await database.transaction { db in
            guard
                let accountID: String = try await db.value(
                    "SELECT account_id FROM store_transactions WHERE transaction_id = ? AND account_id IS NOT NULL",
                    [transactionID])
            else { return nil }
            if let first: String = try await db.value(
                "SELECT token FROM app_account_tokens WHERE account_id = ? ORDER BY created_at, token LIMIT 1",
                [accountID])
            {
                return (accountID, first)
            }
            let token = AppAccountToken(accountID, token: UUID().uuidString.lowercased(), createdAt: now)
            try await db.insert(token, into: "app_account_tokens")
            return (accountID, token.token)
        }
    }
}
