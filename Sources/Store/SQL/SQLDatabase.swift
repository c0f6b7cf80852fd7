import Foundation

/// The pipeline's database as the stores see it, SQLite (``SQLiteDatabase``) or
/// PostgreSQL (``PostgresPipelineDatabase``): transactions that run a body against a
/// ``SQLSession``.
///
/// The `async` ones run the body on a thread of the database's own. The blocking ones run
/// it on the caller's thread (PostgreSQL: on a connection's thread while the caller waits),
/// for the stages that keep a thread of their own for the database (the intake's group
/// commit, the relay, the notifier): never call those from the task pool.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in one write transaction and commits it; nothing of it stays if it throws.
    /// A transaction that lost a race with another process's (``SQLError/retry(_:)``) is
    /// run again from the start, so `body` must do nothing outside the database.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T

    /// Runs `body` in one read-only transaction, on a consistent snapshot.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T

    /// ``transaction(_:)``, blocking the calling thread.
    /// - Parameters:
    ///   - priority: `.urgent` goes before this process's other waiting writes (SQLite).
    ///   - sync: `.relaxed` for records whose loss only repeats work: not synced at commit
    ///     (SQLite `synchronous = NORMAL`, PostgreSQL `synchronous_commit = off`).
    func blockingTransaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) throws -> T

    /// ``snapshot(_:)``, blocking the calling thread.
    func blockingSnapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) throws -> T
}

extension SQLDatabase {
    func blockingTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) throws -> T {
        try blockingTransaction(priority: .normal, sync: .durable, body)
    }
}
