import Foundation
import PipelineCore
import PipelineTesting
import Settlement
import Store
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
                (try? await LedgerStore(database).account(id: "player")?.balances["coins"]) == 2_000
            }
            #expect(credited)
        }
        let threads = log.take()
        #expect(!threads.isEmpty)
        #expect(threads.allSatisfy { $0 == (caller: "iap-writer", body: "iap-writer") }, "\(threads)")
    }
}

/// A database that records, for each write transaction, the names of the thread that asked
/// for it and of the one its body ran on.
private final class ThreadRecordingDatabase: SQLDatabase {
    let base: any SQLDatabase
    let threads: ThreadLog

    init(_ base: any SQLDatabase, log: ThreadLog) {
        self.base = base
        self.threads = log
    }

    func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        let caller = Self.threadName()
        return try await base.transaction(priority: priority, sync: sync) { [threads] session in
            threads.add(caller: caller, body: Self.threadName())
            return try await body(session)
        }
    }

    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await base.snapshot(body)
    }

    func leadership(of name: String) -> any Leadership { base.leadership(of: name) }
    func makeWriteExecutor() -> (any TaskExecutor)? { base.makeWriteExecutor() }

    /// The calling thread's name, as the kernel has it.
    private static func threadName() -> String {
        let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }
}

/// Thread names, a pair per transaction.
private final class ThreadLog: Sendable {
    private let pairs = Mutex<[(caller: String, body: String)]>([])

    func add(caller: String, body: String) { pairs.withLock { $0.append((caller, body)) } }

    /// The pairs so far, and starts afresh.
    func take() -> [(caller: String, body: String)] {
        pairs.withLock { pairs in
            defer { pairs = [] }
            return pairs
        }
    }
}
