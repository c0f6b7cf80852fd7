import Foundation

/// The pipeline's database as the stores see it, SQLite (``PipelineDatabase``) or
/// PostgreSQL (``PostgresPipelineDatabase``): transactions that run a body against a
/// ``SQLSession`` on a thread of their own, never on the caller's.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in one write transaction and commits it; nothing of it stays if it throws.
    /// A transaction that lost a race with another process's (``SQLError/retry(_:)``) is
    /// run again from the start, so `body` must do nothing outside the database.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T

    /// Runs `body` in one read-only transaction, on a consistent snapshot.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T
}

extension PipelineDatabase: SQLDatabase {
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await write { db in try body(GRDBSession(db: db)) }
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await read { db in try body(GRDBSession(db: db)) }
    }
}
