import Database
import Foundation
import Logging
import PostgresNIO
import SettlementWriter

// MARK: - Administration: start-up checks, migrations, statements outside a transaction

extension PostgresPipelineDatabase {
    /// Runs one statement outside any transaction, such as `CREATE DATABASE` (which cannot
    /// run inside one): for administration and tests, never for the pipeline's data.
    public func administer(_ sql: String) async throws(PostgresStoreError) {
        try await onOwnConnection { session in _ = try await session.execute(sql) }
    }

    /// Connects once and logs in: a process checks this at start, so that a wrong host,
    /// port, password or database stops it at once with the reason. With several servers,
    /// one must accept writes (`target_session_attrs`), else each one's reason is given.
    public func checkReachable() async throws(PostgresStoreError) {
        do {
            _ = try await primary.check()
        } catch {
            throw .server(location: location.description, message: (error as? SQLError)?.message ?? "\(error)")
        }
        try await onOwnConnection { session in _ = try await session.run("SELECT 1") }
    }

    /// The schema version the database is at; 0 for an empty database.
    public func schemaVersion() async throws(PostgresStoreError) -> Int {
        try await onOwnConnection { session in try await PostgresMigrator.version(session) }
    }

    /// Applies every migration the database lacks, in one transaction (see ``PostgresMigrator``).
    /// - Throws: ``PostgresStoreError`` when the server cannot be reached, or when the
    ///   database was migrated by a newer version of this program (nothing is changed).
    public func migrate() async throws(PostgresStoreError) {
        try await onOwnConnection { session in
            _ = try await session.run("BEGIN")
            do {
                try await PostgresMigrator.migrate(session)
                _ = try await session.run("COMMIT")
            } catch {
                _ = try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    /// The dead-peer options (``DeadPeer/read(socket:)``'s order) on the sockets this database
    /// uses: a pooled connection's, then a connection of its own's. For tests, which import no
    /// driver.
    public func socketOptions() async throws -> (pooled: [Int32], own: [Int32]) {
        let pooled = try await leased { connection, _ in try await PostgresSocket.read(connection) }
        let (connection, _) = try await primary.connect(id: 0, logger: logger)
        defer { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
        return (pooled, try await PostgresSocket.read(connection))
    }

    /// Runs `body` on a connection of its own to the primary, outside the pool, closed
    /// afterwards; what fails is named with the database, never its password.
    func onOwnConnection<T: Sendable>(_ body: (PostgresSession) async throws -> T) async throws(PostgresStoreError)
        -> T
    {
        do {
            let (connection, server) = try await primary.connect(id: 0, logger: logger)
            let sign = FailoverSign()
            do {
                let result = try await body(
                    PostgresSession(connection: connection, logger: logger, sign: sign, deadline: bounds.work))
                try? await connection.close()
                return result
            } catch {
                if sign.isSeen { primary.suspect(server, because: "\(error)") }
                try? await connection.close()
                throw error
            }
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
