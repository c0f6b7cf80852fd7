import Foundation

/// The pipeline's database as the stores see it, SQLite (`SQLiteDatabase`, module
/// DatabaseSQLite) or PostgreSQL (`PostgresPipelineDatabase`, module DatabasePostgres):
/// transactions that run a body against a ``SQLSession``.
///
/// Every transaction is awaited and blocks no thread of the task pool: PostgreSQL's are
/// round trips on a pooled connection; SQLite's run on the connection's own queue.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in one write transaction and commits it; nothing of it stays if it throws.
    /// A transaction that lost a race with another process's (``SQLError/retry(_:)``) is
    /// run again from the start, so `body` must do nothing outside the database.
    /// - Parameters:
    ///   - priority: `.urgent` goes before this process's other waiting writes (SQLite; the
    ///     intake's group commit, which HTTP requests wait on).
    ///   - sync: `.relaxed` for records whose loss only repeats work: not synced at commit
    ///     (SQLite `synchronous = NORMAL`, PostgreSQL `synchronous_commit = off`).
    @discardableResult
    func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T

    /// Runs `body` in one read-only transaction, on a consistent snapshot.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T

    /// Who runs a job only one process may run at a time (the subscription scheduler, the
    /// Google voided poll), among the processes sharing this database.
    func leadership(of name: String) -> any Leadership

    /// Where the commits that signal a channel can be heard; nil when they cannot.
    var commitSignals: (any CommitSignals)? { get }

    /// Where a task that writes again and again (the intake's group commit, the fulfiller's
    /// batches, the notifier's outcomes) runs its writes with the fewest hops, a new one for
    /// each such task; nil: anywhere.
    func makeWriteExecutor() -> (any TaskExecutor)?

    /// The same database for long work (reports over the whole database, in a process whose
    /// other work is short): a backend that bounds each transaction's time gives this one
    /// the longer bound. Itself where nothing is bounded.
    func forLongWork() -> any SQLDatabase
}

extension SQLDatabase {
    public var commitSignals: (any CommitSignals)? { nil }
    public func makeWriteExecutor() -> (any TaskExecutor)? { nil }
    public func forLongWork() -> any SQLDatabase { self }

    /// A durable write transaction at normal priority (see ``transaction(priority:sync:_:)``).
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws
        -> T
    {
        try await transaction(priority: .normal, sync: .durable, body)
    }
}
