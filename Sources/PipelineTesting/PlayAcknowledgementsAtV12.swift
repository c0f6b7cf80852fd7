import Foundation
import PipelineCore
import Store

/// What a fulfiller of schema v12 left of Google Play's acknowledgements, for the tests of
/// v13 (which moves them into `store_confirmations`): written into a database at v12.
public enum PlayAcknowledgementsAtV12 {
    public static let package = "com.example.game"

    /// Three Play purchases credited (receipts `r-pend`, `r-done`, `r-fail` of accounts
    /// `a-pend`…, as transactions `GPA.pend`… of tokens `tok-pend`…), and the rows v12 kept
    /// for them: `tok-pend` pending (failed twice, due again at `dueAt`), `tok-done` done a
    /// minute after `now`, `tok-fail` failed (`not found`); and `tok-orphan` pending, due at
    /// `now`, whose transaction was never recorded. `consumable` is bought as `pend` and
    /// `fail`, `unlock` (acknowledged, not consumed) as `done`; `catalog` sells both.
    public static func write(
        _ database: any SQLDatabase, catalog: Catalog, consumable: String, unlock: String, now: Date, dueAt: Date
    ) async throws {
        let purchases = [("pend", consumable), ("done", unlock), ("fail", consumable)]
        let receipts = purchases.map { name, product in
            let payload = GooglePlayPurchase(packageName: package, productID: product, purchaseToken: "tok-\(name)")
                .canonicalJSON
            return NewReceipt(
                id: "r-\(name)", accountID: "a-\(name)", kind: .googlePlay, payload: payload,
                payloadHash: sha256Hex("google_play:" + payload), requestHash: sha256Hex("a-\(name)" + payload))
        }
        _ = try await IntakeStore(database).accept(receipts, now: now)
        _ = try await SettlementStore(database).apply(
            purchases.map { name, product in
                Verdict(
                    outcome: .valid, receiptID: "r-\(name)", accountID: "a-\(name)", attempts: 1,
                    environment: "Production",
                    transactions: [
                        VerifiedTransaction(
                            transactionID: "GPA.\(name)", originalTransactionID: "tok-\(name)", productID: product)
                    ], decidedAt: now)
            }, catalog: catalog, now: now)
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
