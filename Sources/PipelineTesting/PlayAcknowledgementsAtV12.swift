import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// What a fulfiller of schema v12 left of Google Play's acknowledgements, for the tests of
/// v13 (which moves them into `store_confirmations`): written into a database at v12.
public enum PlayAcknowledgementsAtV12 {
    public static let package = "com.example.game"

    /// Three Play purchases credited (receipts `r-pend`, `r-done`, `r-fail` of accounts
    /// `a-pend`…, as transactions `GPA.pend`… of tokens `tok-pend`…), and the rows v12 kept
    /// for them: `tok-pend` pending (failed twice, due again at `dueAt`), `tok-done` done a
    /// minute after `now`, `tok-fail` failed (`not found`); and `tok-orphan` pending, due at
    /// `now`, whose transaction was never recorded. `consumable` is bought as `pend` and
    /// `fail` (100 coins each), `unlock` (acknowledged, not consumed) as `done`.
    public static func write(
        _ database: any SQLDatabase, consumable: String, unlock: String, now: Date, dueAt: Date
    ) async throws {
        let purchases = [("pend", consumable), ("done", unlock), ("fail", consumable)]
        let receipts = purchases.map { name, product in
            let payload = GooglePlayPurchase(packageName: package, productID: product, purchaseToken: "tok-\(name)")
                .canonicalJSON
            return NewReceipt(
                id: "r-\(name)", accountID: "a-\(name)", kind: .googlePlay, payload: payload,
                payloadHash: sha256Hex("google_play:" + payload), requestHash: sha256Hex("a-\(name)" + payload))
        }
        _ = try await IntakeRepository(database).accept(receipts, now: now)
        // Credited as v12's settlement writer left them, in v12's own columns: this program's
        // writer speaks the latest schema, not the one this database is at.
        let units: [String: Int] = [consumable: 100]
        try await database.transaction { db in
            for (name, product) in purchases {
                try await db.execute(
                    """
                    INSERT INTO store_transactions (
                        transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
                        account_id, state, created_at, updated_at, binding)
                    VALUES (?, ?, ?, 1, 'Production', ?, ?, 'credited', ?, ?, 'submitter')
                    """, ["GPA.\(name)", "tok-\(name)", product, "r-\(name)", "a-\(name)", now, now])
                guard let amount = units[product] else { continue }
                try await db.execute(
                    """
                    INSERT INTO ledger_entries (account_id, currency, amount, kind, receipt_id, transaction_id, created_at)
                    VALUES (?, 'coins', ?, 'purchase', ?, ?, ?)
                    """, ["a-\(name)", amount, "r-\(name)", "GPA.\(name)", now])
                try await db.execute(
                    "INSERT INTO balances (account_id, currency, amount) VALUES (?, 'coins', ?)", ["a-\(name)", amount])
            }
        }
        let rows: [SQLArguments] = [
            ["tok-pend", consumable, "consume", "r-pend", "pending", 2, dueAt, "HTTP 503", nil],
            ["tok-done", unlock, "acknowledge", "r-done", "done", 1, nil, nil, now.addingTimeInterval(60)],
            ["tok-fail", consumable, "consume", "r-fail", "failed", 1, nil, "not found", nil],
            ["tok-orphan", consumable, "consume", nil, "pending", 0, now, nil, nil],
        ]
        try await database.transaction { db in
            for row in rows {
                try await db.execute(
                    """
                    INSERT INTO google_acknowledgements (
                        purchase_token, product_id, action, receipt_id, status, attempts, next_attempt_at,
                        last_error, done_at, package_name, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, row + [package, now])
            }
        }
    }

    /// The payload a Google confirmation carries (`GooglePlayConfirmation.json`), to the byte.
    public static func payload(_ action: String, _ product: String, _ token: String) -> String {
        #"{"action":"\#(action)","purchase":{"package_name":"\#(package)","product_id":"\#(product)","#
            + #""purchase_token":"\#(token)"}}"#
    }
}
