import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Synchronization
import Testing

@testable import Fulfiller

/// On SQLite the fulfiller's batches run on a writer thread of their own, where each batch's
/// transaction runs inline, instead of hopping to GRDB's queue and back to the task pool.
extension FulfillerTests {
    @Test func eachBatchCommitsOnTheFulfillersWriterThread() async throws {
        let log = ThreadLog()
        try await withFulfiller(receipts: 20, batchSize: 8, through: { ThreadRecordingDatabase($0, log: log) }) {
            connection, topology, database, ids in
            let messages = try coinVerdicts(ids).map { try verdictMessage($0, topology) }
            #expect(await connection.publish(messages).allSatisfy { (try? $0.get()) != nil })
            let credited = await eventually {
                (try? await LedgerRepository(database).account(id: "player")?.balances["coins"]) == 2_000
            }
            #expect(credited)
        }
        let threads = log.take()
        #expect(!threads.isEmpty)
        #expect(threads.allSatisfy { $0 == (caller: "iap-writer", body: "iap-writer") }, "\(threads)")
    }
}
