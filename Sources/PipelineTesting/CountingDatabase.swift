import Database
import Foundation
import Repositories
import SettlementWriter
import Synchronization

/// A database that counts the statements the stores send through it, as another backend
/// would see them: each transaction's `BEGIN` and `COMMIT` too. For tests that pin how
/// many statements a batch costs, and keeps their text and arguments for tests that ask
/// the database how it would run them.
public final class CountingDatabase: SQLDatabase {
    let base: any SQLDatabase
    let counter = StatementCounter()

    public init(_ base: any SQLDatabase) {
        self.base = base
    }

    /// Statements since the last call, and starts counting afresh.
    public func take() -> Int { counter.take() }

    /// The statements sent since the last call (but `BEGIN`, `COMMIT` and savepoints), in
    /// order, and starts afresh.
    public func takeStatements() -> [SentStatement] { counter.takeStatements() }

    public func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        counter.add(2)
        return try await base.transaction(priority: priority, sync: sync) { [counter] db in
            try await body(CountingSession(base: db, counter: counter))
        }
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T
    {
        counter.add(2)
        return try await base.snapshot { [counter] db in try await body(CountingSession(base: db, counter: counter)) }
    }

    public func leadership(of name: String) -> any Leadership { base.leadership(of: name) }
    public var commitSignals: (any CommitSignals)? { base.commitSignals }
    public func makeWriteExecutor() -> (any TaskExecutor)? { base.makeWriteExecutor() }
}

/// A statement as a store sent it.
public struct SentStatement: Sendable {
    public let sql: String
    public let arguments: SQLArguments
}

final class StatementCounter: Sendable {
    private let count = Mutex(0)
    private let sent = Mutex<[SentStatement]>([])
    func add(_ statements: Int) { count.withLock { $0 += statements } }
    func add(_ sql: String, _ arguments: SQLArguments) {
        add(1)
        sent.withLock { $0.append(SentStatement(sql: sql, arguments: arguments)) }
    }
    func take() -> Int {
        count.withLock { value in
            defer { value = 0 }
            return value
        }
    }
    func takeStatements() -> [SentStatement] {
        sent.withLock { value in
            defer { value = [] }
            return value
        }
    }
}

struct CountingSession: SQLSession {
    let base: any SQLSession
    let counter: StatementCounter

    var dialect: SQLDialect { base.dialect }

    func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int {
        counter.add(sql, arguments)
        return try await base.execute(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: SQLArguments) async throws -> [SQLRow] {
        counter.add(sql, arguments)
        return try await base.rows(sql, arguments)
    }

    func savepoint<T>(_ body: () async throws -> T) async throws -> T {
        counter.add(2)
        return try await base.savepoint(body)
    }

    func lock(_ keys: [String]) async throws {
        if base.dialect == .postgres && !keys.isEmpty { counter.add(1) }
        try await base.lock(keys)
    }

    func stored(_ date: Date) -> SQLValue { base.stored(date) }

    func signal(_ channel: CommitChannel) async throws {
        counter.add(1)
        try await base.signal(channel)
    }
}
