import Database
import Foundation
import GRDB
import SettlementWriter

extension SQLiteDatabase: SQLDatabase {
    /// One write transaction on the writer's queue, holding the processes' write lock: the
    /// calling task is suspended, never its thread. An `.urgent` write (the intake's group
    /// commit, which HTTP requests are waiting on) goes before the `.normal` ones waiting in
    /// this process, but never twice in a row while one is waiting, so that crediting and
    /// marking keep going under a flood.
    @discardableResult
    public func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        let raised = RaisedSignals()
        let result = try await Self.translatingErrors {
            try await writeGate.pass(priority) {
                try await write(sync: sync) { db in
                    let connection = SameThread(value: db)
                    return try CallerThreadExecutor.run {
                        try await body(GRDBSession(db: connection.value, raised: raised))
                    }
                }
            }
        }
        // Committed: now the listeners may look.
        if let bell, let channels = raised.channels { bell.ring(channels) }
        return result
    }

    /// One read transaction, on a snapshot that writers do not disturb, on a reader's queue.
    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T
    {
        try await Self.translatingErrors {
            try await read { db in
                let connection = SameThread(value: db)
                return try CallerThreadExecutor.run { try await body(GRDBSession(db: connection.value)) }
            }
        }
    }

    /// A thread of its own for a task that writes again and again: its writes run inline.
    public func makeWriteExecutor() -> (any TaskExecutor)? { WriterThread() }

    /// Commits that signalled a channel ring a socket beside the file (``CommitBell``).
    public var commitSignals: (any CommitSignals)? { bell == nil ? nil : self }

    /// One host, one file: every process may run any job; its claims are transactions on
    /// the one writer, so two never take the same row.
    public func leadership(of name: String) -> any Leadership { AlwaysLeader() }
}

extension SQLiteDatabase: CommitSignals {
    public func listen(to channel: CommitChannel, heard: @escaping @Sendable () -> Void) async {
        await bell?.listen(to: channel, heard: heard)
    }
}
