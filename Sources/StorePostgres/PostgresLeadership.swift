import Foundation
import Logging
import PostgresNIO
import Store

/// Leadership held as a PostgreSQL session-level advisory lock on a connection of its own
/// (outside the pool, which would hand it to other work): one process holds it; when that
/// process dies its connection closes, the lock with it, and the next process to ask takes
/// over.
public actor PostgresLeadership: Leadership {
    private let location: PostgresLocation
    private let key: String
    private let logger: Logger
    private var connection: PostgresConnection?
    private var held = false

    /// - Parameter name: names the job; processes asking for one name compete.
    public init(location: PostgresLocation, name: String, logger: Logger) {
        self.location = location
        self.key = "leader:\(name)"
        self.logger = logger
    }

    deinit {
        // Closing ends the session and its lock with it. postgres-nio requires a connection
        // closed before it goes: the callback keeps it until the close is done.
        if let connection { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
    }

    /// Holds the lock (checking that its connection still answers), or tries to take it.
    public func isLeader() async -> Bool {
        let wasLeader = held
        let leads: Bool
        do {
            let session = PostgresSession(connection: try await connected(), logger: logger)
            if wasLeader {
                _ = try await session.run("SELECT 1")
                leads = true
            } else {
                let rows = try await session.rows("SELECT pg_try_advisory_lock(hashtextextended(?, 0)) AS won", [key])
                leads = try rows.first?.get("won", as: Bool.self) ?? false
            }
        } catch {
            // The connection broke: the lock went with it.
            try? await connection?.close()
            connection = nil
            leads = false
        }
        held = leads
        if leads != wasLeader {
            logger.notice(leads ? "took the lead" : "lost the lead", metadata: ["job": "\(key)"])
        }
        return leads
    }

    /// Gives the lead up (at shutdown), so that another process takes over at once. (A
    /// process that dies gives it up when the server notices its connection closed.)
    public func resign() async {
        guard held else { return }
        if let connection {
            let session = PostgresSession(connection: connection, logger: logger)
            _ = try? await session.run("SELECT pg_advisory_unlock(hashtextextended(?, 0))", [.text(key)])
            try? await connection.close()
        }
        connection = nil
        held = false
        logger.notice("gave up the lead", metadata: ["job": "\(key)"])
    }

    private func connected() async throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        do {
            let made = try await PostgresConnection.connect(
                configuration: location.connectionConfiguration(timeout: .seconds(10)), id: 1, logger: logger)
            connection = made
            return made
        } catch let error as PSQLError {
            throw PostgresSession.translate(error)
        }
    }
}
