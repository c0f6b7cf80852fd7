import Database
import DatabaseSQLite
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import Intake

/// Receipts arriving a few milliseconds apart share commits, each answered from a durable
/// row. Alone: among the parallel tests a 2 ms sleep took seconds (the task pool busy with
/// the others), the arrivals were no longer dense, and the test measured the machine.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneGroupCommitSharingTests {
    @Test func receiptsArrivingEveryFewMillisecondsShareCommitsAndAreEachAnsweredFromADurableRow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let commits = Mutex<[Int]>([])
        // A wait far longer than the gaps: each commit of one receipt is joined by the next.
        // The last one waits for the timer.
        let committer = GroupCommitter(database: database, maxWait: .milliseconds(50)) { created in
            commits.withLock { $0.append(created.count) }
        }
        let receipts = (0..<40).map { index in NewReceipt.fixture(accountID: "player-\(index % 7)") }
        let outcomes = try await withThrowingTaskGroup(of: AcceptOutcome.self) { group in
            for receipt in receipts {
                group.addTask { try await committer.accept(receipt) }
                try await Task.sleep(for: .milliseconds(2))
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 40)
        #expect(outcomes.allSatisfy { if case .created = $0 { true } else { false } })
        let stored = try await IntakeRepository(database).unpublished(limit: 100)
        #expect(Set(stored.map(\.id)) == Set(receipts.map(\.id)))
        let sizes = commits.withLock { $0 }
        #expect(sizes.reduce(0, +) == 40)
        // Most went two to a commit (alone, 2 ms apart, nearly all commit one at a time).
        #expect(sizes.filter { $0 > 1 }.reduce(0, +) >= 20, "commits: \(sizes)")
    }
}
