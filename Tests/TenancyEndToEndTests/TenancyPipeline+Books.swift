import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// What one app holds in the books, to show that another app's events leave it as it was.
extension TenancyPipeline {
    /// The tables that hold money, identity or a dedupe key.
    static let tenantTables = [
        "accounts", "balances", "ledger_entries", "entitlements", "store_transactions", "store_notifications",
        "app_account_tokens", "orders", "receipts", "notification_outbox", "store_confirmations",
    ]

    /// The columns the pipeline's own bookkeeping moves on its own time (a webhook's delivery,
    /// a confirmation's attempt, a row's publication): left out, so that what is compared is
    /// what an event changes, the rows and their money.
    static let bookkeeping: Set<String> = [
        "updated_at", "published_at", "status", "attempts", "next_attempt_at", "last_error", "delivered_at",
        "done_at",
    ]

    /// Every row of ``tenantTables`` that is the app keyed `app`'s (``AppScope/key``): by its
    /// `app` column, else by its account's id; each row as text, sorted.
    func rows(ofApp app: String) async throws -> [String] {
        try await books.snapshot { db in
            var rows: [String] = []
            for table in Self.tenantTables {
                for row in try await db.rows("SELECT * FROM \(table)") {
                    let columns = row.columns
                    let account = table == "accounts" ? columns["id"] : columns["account_id"]
                    let owner: String?
                    if case .text(let key)? = columns["app"] {
                        owner = key
                    } else if case .text(let id)? = account {
                        owner = AppScope.key(ofStored: id)
                    } else {
                        owner = nil
                    }
                    guard owner == app else { continue }
                    let kept = columns.keys.filter { !Self.bookkeeping.contains($0) }.sorted()
                    rows.append("\(table): " + kept.map { "\($0)=\(columns[$0]!)" }.joined(separator: " "))
                }
            }
            return rows.sorted()
        }
    }

    /// Waits until nothing is in flight: every receipt and notification final, every webhook
    /// and store confirmation settled, so that rows change only by what the test does next.
    func quiet() async { await Self.quiet(books) }

    /// ``quiet()`` over any pipeline's database.
    static func quiet(_ books: any SQLDatabase) async {
        _ = await eventually(timeout: .seconds(60)) {
            let busy = try? await books.snapshot { db in
                try await db.rows(
                    """
                    SELECT id FROM receipts WHERE status NOT IN ('credited', 'rejected', 'dead')
                    UNION ALL SELECT id FROM store_notifications WHERE status NOT IN ('applied', 'rejected', 'dead')
                    UNION ALL SELECT id FROM notification_outbox WHERE status = 'pending'
                    UNION ALL SELECT transaction_id FROM store_confirmations WHERE status = 'pending'
                    """)
            }
            return busy?.isEmpty == true
        }
    }

    /// Every row of ``tenantTables``, whatever app: what an event no app proves must leave as it was.
    func allRows() async throws -> [String] {
        try await rows(ofApp: "") + rows(ofApp: "racer")
    }
}
