import Foundation
import Logging
import Store

/// A PostgreSQL database (`IAP_DATABASE_URL`): a pool of connections and the schema.
///
/// The stores run on it the way they run on ``SQLiteDatabase`` over SQLite; this type
/// owns the connections and brings the schema up to date (``migrate()``), under an
/// advisory lock so that processes starting together migrate one after another.
public final class PostgresPipelineDatabase: SQLDatabase {
    public let location: PostgresLocation
    let logger: Logger
    /// The stores' transactions, each on a connection and thread of its own.
    private let lanes: PostgresLanes
    /// Migrations and administration, off the stores' lanes.
    private let admin: PostgresLanes.Lane

    /// Nothing is connected until the first transaction.
    /// - Parameter connections: how many transactions this process runs at once.
    public init(location: PostgresLocation, connections: Int = 4, logger: Logger) {
        self.location = location
        self.logger = logger
        lanes = PostgresLanes(location: location, count: connections, logger: logger)
        admin = PostgresLanes.Lane(index: connections, location: location, logger: logger)
    }

    deinit {
        lanes.shutdown()
        let admin = self.admin
        admin.thread.execute { admin.disconnect() }
        admin.thread.shutdown()
    }

    /// Closes every connection, and waits until they are closed.
    public func close() async {
        await lanes.close()
        _ = try? await admin.thread.run { [admin] in admin.disconnect() }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await lanes.transaction(.write(.durable), body)
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws -> T {
        try await lanes.transaction(.read, body)
    }

    /// PostgreSQL orders waiting transactions itself: `priority` changes nothing here.
    public func blockingTransaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) throws -> T {
        try lanes.blockingTransaction(.write(sync), body)
    }

    public func blockingSnapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) throws -> T {
        try lanes.blockingTransaction(.read, body)
    }

    /// Runs one statement outside any transaction, such as `CREATE DATABASE` (which cannot
    /// run inside one): for administration and tests, never for the pipeline's data.
    public func administer(_ sql: String) async throws(PostgresStoreError) {
        try await reach { [admin] in try admin.outsideTransaction { session in try session.execute(sql) } }
    }

    /// Connects once and logs in: a process checks this at start, so that a wrong host,
    /// port, password or database stops it at once with the reason.
    public func checkReachable(timeout: Duration = .seconds(5)) async throws(PostgresStoreError) {
        try await reach { [admin] in try admin.outsideTransaction { session in _ = try session.run("SELECT 1", []) } }
    }

    /// The schema version the database is at; 0 for an empty database.
    public func schemaVersion() async throws(PostgresStoreError) -> Int {
        try await reach { [admin] in try admin.outsideTransaction { session in try PostgresMigrator.version(session) } }
    }

    /// Applies every migration the database lacks, in one transaction.
    /// - Throws: ``PostgresStoreError`` when the server cannot be reached, or when the
    ///   database was migrated by a newer version of this program (nothing is changed).
    public func migrate() async throws(PostgresStoreError) {
        try await reach { [admin] in
            try admin.transaction(.write(.durable)) { session in try PostgresMigrator.migrate(session) }
        }
    }

    /// Runs `body` on the administration lane, turning what fails into errors that name the
    /// database without its password.
    private func reach<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws(PostgresStoreError) -> T {
        do {
            return try await admin.thread.run(body)
        } catch let error as PostgresStoreError {
            throw error
        } catch let error as SQLError {
            throw .server(location: location.description, message: error.message)
        } catch {
            throw .server(location: location.description, message: String(describing: error))
        }
    }
}

/// Why a PostgreSQL database cannot be used.
public enum PostgresStoreError: Error, CustomStringConvertible, Sendable {
    /// The server refused, could not be reached, or failed a statement.
    case server(location: String, message: String)
    /// The schema is newer than this program knows.
    case newerSchema(found: Int, known: Int)

    public var description: String {
        switch self {
        case .server(let location, let message):
            "PostgreSQL at \(location): \(message)"
        case .newerSchema(let found, let known):
            "the database was migrated by a newer version of this program (schema \(found); this one knows up to \(known))"
        }
    }
}
