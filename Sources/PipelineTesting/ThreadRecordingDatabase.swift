import Database
import Foundation
import Repositories
import SettlementWriter
import Synchronization

/// A database that records, for each write transaction, the names of the thread that asked
/// for it and of the one its body ran on.
public final class ThreadRecordingDatabase: SQLDatabase {
    let base: any SQLDatabase
    let threads: ThreadLog

    public init(_ base: any SQLDatabase, log: ThreadLog) {
        self.base = base
        self.threads = log
    }

    public func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        let caller = currentThreadName()
        return try await base.transaction(priority: priority, sync: sync) { [threads] session in
            threads.add(caller: caller, body: currentThreadName())
            return try await body(session)
        }
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T
    {
        try await base.snapshot(body)
    }

    public func leadership(of name: String) -> any Leadership { base.leadership(of: name) }
    public var commitSignals: (any CommitSignals)? { base.commitSignals }
    public func makeWriteExecutor() -> (any TaskExecutor)? { base.makeWriteExecutor() }
}

/// The calling thread's name, as the kernel has it (what `top -H` and `perf` show).
public func currentThreadName() -> String {
    threadName(at: "/proc/thread-self/comm") ?? "?"
}

/// How many of this process's threads the kernel names `name`.
public func threadCount(named name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { threadName(at: "/proc/self/task/\($0)/comm") == name }.count
}

private func threadName(at path: String) -> String? {
    (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Thread names, a pair per transaction.
public final class ThreadLog: Sendable {
    private let pairs = Mutex<[(caller: String, body: String)]>([])

    public init() {}

    func add(caller: String, body: String) { pairs.withLock { $0.append((caller, body)) } }

    /// The pairs so far, and starts afresh.
    public func take() -> [(caller: String, body: String)] {
        pairs.withLock { pairs in
            defer { pairs = [] }
            return pairs
        }
    }
}
