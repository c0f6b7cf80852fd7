import Foundation
import Store

extension SQLiteDatabase: SQLDatabase {
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await Self.translatingErrors { try await write { db in try body(GRDBSession(db: db)) } }
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await Self.translatingErrors { try await read { db in try body(GRDBSession(db: db)) } }
    }

    public func blockingTransaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) throws -> T {
        try Self.translatingErrors { try write(priority: priority, sync: sync) { db in try body(GRDBSession(db: db)) } }
    }

    public func blockingSnapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) throws -> T {
        try Self.translatingErrors { try read { db in try body(GRDBSession(db: db)) } }
    }
}
