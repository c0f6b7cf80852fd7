import Database
import Foundation
import Notifier
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// On SQLite the notifier records its outcomes on a writer thread of their own, where each
/// batch's transaction runs inline, instead of hopping to GRDB's queue and back.
@Suite struct OutcomeRecorderThreadTests {
    @Test func outcomesAreRecordedOnTheRecordersWriterThread() async throws {
        try await NotifierHarness.with { harness async throws in
            let rows = try await Fixture.notifications(5, in: harness.database)
            let log = ThreadLog()
            try await withWebhookReceiver(secret: Fixture.secret.encoded, now: harness.clock.function) {
                receiver async throws in
                let notifier = harness.notifier(
                    url: receiver.url, database: ThreadRecordingDatabase(harness.database, log: log))
                #expect(try await notifier.runOnce() == 5)
            }
            for row in rows {
                #expect(try await harness.row(row.id) == OutboxRow(status: "delivered", attempts: 1))
            }
            // The claim, from the caller's thread; then the outcomes' batches, on the writer thread.
            let records = log.take().dropFirst()
            #expect(!records.isEmpty)
            #expect(records.allSatisfy { $0 == (caller: "iap-writer", body: "iap-writer") }, "\(records)")
        }
    }
}
