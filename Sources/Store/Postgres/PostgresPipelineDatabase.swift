import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// A PostgreSQL database (`IAP_DATABASE_URL`): a pool of connections and the schema.
///
/// The stores run on it the way they run on ``PipelineDatabase`` over SQLite; this type
/// owns the connections and brings the schema up to date (``migrate()``), under an
/// advisory lock so that processes starting together migrate one after another.
public final class PostgresPipelineDatabase: SQLDatabase {
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>
    /// The stores' transactions, each on a connection and thread of its own.
    private let lanes: PostgresLanes

    /// Starts the pool; nothing is connected until the first query.
    /// - Parameter connections: how many transactions this process runs at once.
    public init(location: PostgresLocation, connections: Int = 4, logger: Logger) {
        self.location = location
        self.logger = logger
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
        lanes = PostgresLanes(location: location, count: connections, logger: logger)
    }

    deinit { lanes.shutdown() }

    /// Closes every connection.
    public func close() async {
        lanes.shutdown()
        running.cancel()
        await running.value
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

    /// Connects once, outside the pool, and logs in: a process checks this at start, so that
    /// a wrong host, port, password or database stops it at once with the reason (the pool
    /// itself would keep retrying).
    public func checkReachable(timeout: Duration = .seconds(5)) async throws(PostgresStoreError) {
        try await reach {
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(),
                configuration: try location.connectionConfiguration(timeout: timeout), id: 0, logger: logger
            ).get()
            try await connection.close()
        }
    }

    /// Runs one statement outside any transaction, such as `CREATE DATABASE` (which cannot
    /// run inside one): for administration and tests, never for the pipeline's data.
    public func administer(_ sql: String) async throws(PostgresStoreError) {
        try await reach { try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
    }

    /// The schema version the database is at; 0 for an empty database.
    public func schemaVersion() async throws(PostgresStoreError) -> Int {
        try await reach {
            try await client.withConnection { connection in try await Self.version(on: connection, logger: logger) }
        }
    }

    /// Applies every migration the database lacks, each in its own transaction.
    /// - Throws: ``PostgresStoreError`` when the server cannot be reached, or when the
    ///   database was migrated by a newer version of this program (nothing is changed).
    public func migrate() async throws(PostgresStoreError) {
        try await checkReachable()
        try await reach {
            try await client.withTransaction(logger: logger) { connection in
                // One migrator at a time across processes; released with the transaction.
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS iap_schema_migrations (
                      version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """, logger: logger)
                let current = try await Self.version(on: connection, logger: logger)
                guard current <= PostgresSchema.latestVersion else {
                    throw PostgresStoreError.newerSchema(found: current, known: PostgresSchema.latestVersion)
                }
                for migration in PostgresSchema.migrations where migration.version > current {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO iap_schema_migrations (version) VALUES (\(migration.version))", logger: logger)
                }
            }
        }
    }

    /// An arbitrary constant that names the migration lock among advisory locks.
    private static let migrationLock: Int64 = 0x6961_705F_6D69_6772  // "iap_migr"

    private static func version(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let exists =
            try await connection.query(
                "SELECT to_regclass('iap_schema_migrations') IS NOT NULL", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        guard exists else { return 0 }
        let row = try await connection.query("SELECT max(version) FROM iap_schema_migrations", logger: logger)
            .collect().first
        return try row?.decode(Int?.self) ?? 0
    }

    /// Runs `body`, turning what the driver throws into errors that name the database
    /// without its password.
    private func reach<T>(_ body: () async throws -> T) async throws(PostgresStoreError) -> T {
        do {
            return try await body()
        } catch let error as PostgresStoreError {
            throw error
        } catch let error as PSQLError {
            throw .server(location: location.description, message: Self.describe(error))
        } catch {
            throw .server(location: location.description, message: String(describing: error))
        }
    }

    private static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "cannot connect (\(underlying))" }
        return "\(error.code)"
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
