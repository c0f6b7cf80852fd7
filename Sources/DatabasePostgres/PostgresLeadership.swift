import Database
import Foundation
import Logging
import PostgresNIO
import SettlementWriter

/// Leadership held as a PostgreSQL session-level advisory lock on a connection of its own
/// (outside the pool, which would hand it to other work), on the primary: one process holds
/// it; when that process dies its connection closes, the lock with it, and the next process
/// to ask takes over.
///
/// A failover ends every session on the old primary, the lock with them: the leader hears so
/// at its next check, and whoever asks first on the new primary leads. A leader whose database
/// has moved to another server (its transactions found the new primary) lets its old session
/// go and asks again there, so that two leaders on two servers never last past a check.
public actor PostgresLeadership: Leadership {
    private let primary: PostgresPrimary
    private let key: String
    private let logger: Logger
    private var connection: (connection: PostgresConnection, server: Int)?
    private var held = false

    /// - Parameter name: names the job; processes asking for one name compete.
    init(primary: PostgresPrimary, name: String, logger: Logger) {
        self.primary = primary
        self.key = "leader:\(name)"
        self.logger = logger
    }

    deinit {
        // Closing ends the session and its lock with it. postgres-nio requires a connection
        // closed before it goes: the callback keeps it until the close is done.
        if let connection = connection?.connection {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Holds the lock (checking that its connection still answers), or tries to take it.
    public func isLeader() async -> Bool {
        let wasLeader = held
        let leads: Bool
        var failure: (any Error)?
        do {
            let (connection, server, isNew) = try await connected()
            let session = PostgresSession(connection: connection, logger: logger, deadline: primary.session.work)
            do {
                // A new session holds no lock, whatever the last check said.
                if wasLeader, !isNew {
                    _ = try await session.run("SELECT 1")
                    leads = true
                } else {
                    let rows = try await session.rows(
                        "SELECT pg_try_advisory_lock(hashtextextended(?, 0)) AS won", [key])
                    leads = try rows.first?.get("won", as: Bool.self) ?? false
                }
            } catch {
                // The connection broke, the lock with it; its server may be the primary no more.
                primary.suspect(server, because: "\(error)")
                throw error
            }
        } catch {
            failure = error
            await disconnect()
            leads = false
        }
        held = leads
        if leads != wasLeader {
            var metadata: Logger.Metadata = ["job": "\(key)"]
            if let failure { metadata["error"] = "\(failure)" }
            logger.notice(leads ? "took the lead" : "lost the lead", metadata: metadata)
        } else if let failure {
            // Asked again at the caller's next check; no server answering is no crash.
            logger.debug("cannot ask for the lead", metadata: ["job": "\(key)", "error": "\(failure)"])
        }
        return leads
    }

    /// Gives the lead up (at shutdown), so that another process takes over at once. (A
    /// process that dies gives it up when the server notices its connection closed.)
    public func resign() async {
        guard held else { return }
        if let connection = connection?.connection {
            let session = PostgresSession(connection: connection, logger: logger, deadline: primary.session.work)
            _ = try? await session.run("SELECT pg_advisory_unlock(hashtextextended(?, 0))", [.text(key)])
        }
        await disconnect()
        held = false
        logger.notice("gave up the lead", metadata: ["job": "\(key)"])
    }

    /// The session on the primary, and whether it is new: kept while it is open and its server
    /// is still the one the database writes to.
    private func connected() async throws -> (PostgresConnection, server: Int, isNew: Bool) {
        if let connection, !connection.connection.isClosed {
            guard let current = primary.current, current != connection.server else {
                return (connection.connection, connection.server, false)
            }
            logger.notice(
                "the primary moved; asking for the lead there",
                metadata: ["job": "\(key)", "server": "\(primary.location.servers[current])"])
        }
        await disconnect()
        let made = try await primary.connect(id: 1, logger: logger)
        connection = made
        return (made.connection, made.server, true)
    }

    private func disconnect() async {
        try? await connection?.connection.close()
        connection = nil
    }
}
