import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter

/// The receipts a pipeline credited before a benchmark's load, so that its figures say whether
/// a database a year old slows the pipeline: `count` receipts of the load's own accounts
/// (`player-(i % accounts)`), each a 100-coin purchase, spread over the year before now,
/// written by the intake's and the fulfiller's own repositories, then published and their
/// webhooks delivered, as a pipeline that kept up would have left them.
struct BenchHistory {
    var count: Int
    var accounts: Int
    /// Receipts per transaction of the writer, as the fulfiller batches them.
    var batch = 500

    /// Writes the history into `database`. - Returns: the seconds it took.
    func write(into database: any SQLDatabase, catalog: Catalog, now: Date = Date()) async throws -> Double {
        let started = ContinuousClock.now
        let intake = IntakeRepository(database)
        let settlement = SettlementRepository(database)
        let year: TimeInterval = 365 * 86_400
        var written = 0
        while written < count {
            let size = min(batch, count - written)
            let at = now.addingTimeInterval(-year + year * Double(written) / Double(count))
            let receipts = (written..<written + size).map { index in
                NewReceipt.fixture(id: "history-\(index)", accountID: "player-\(index % accounts)")
            }
            _ = try await intake.accept(receipts, now: at)
            try await intake.markPublished(receipts.map(\.id), at: at)
            let verdicts = receipts.map { receipt in
                Verdict.fixture(
                    receipt, [(transaction: "history-t-\(receipt.id)", product: "com.example.coins100")], at: at)
            }
            _ = try await settlement.apply(verdicts, catalog: catalog, now: at)
            try await database.transaction { db in
                try await db.execute(
                    """
                    UPDATE notification_outbox SET status = 'delivered', delivered_at = ?, next_attempt_at = NULL
                    WHERE status = 'pending'
                    """, [at])
            }
            written += size
            if written % 100_000 < size { FileHandle.standardError.write(Data("history: \(written) receipts\r".utf8)) }
        }
        return (ContinuousClock.now - started).seconds
    }
}
