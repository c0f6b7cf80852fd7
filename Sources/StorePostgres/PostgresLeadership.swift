import Foundation
import Logging
import Store
import Synchronization

/// Leadership held as a PostgreSQL session-level advisory lock on a connection of its own:
/// one process holds it; when that process dies its connection closes, the lock with it,
/// and the next process to ask takes over.
public final class PostgresLeadership: Leadership {
    private let lane: PostgresLanes.Lane
    private let key: String
    private let logger: Logger
    private let held = Mutex(false)

    /// - Parameter name: names the job; processes asking for one name compete.
    public init(location: PostgresLocation, name: String, logger: Logger) {
        self.lane = PostgresLanes.Lane(index: 0, location: location, logger: logger)
        self.key = "leader:\(name)"
        self.logger = logger
    }

    deinit {
        // A connection must be closed before it goes; the lane's thread does it, last.
        let lane = self.lane
        lane.thread.execute { lane.disconnect() }
        lane.thread.shutdown()
    }

    /// Holds the lock (checking that its connection still answers), or tries to take it.
    public func isLeader() async -> Bool {
        let wasLeader = held.withLock { $0 }
        let leads =
            (try? await lane.thread.run { [lane, key] in
                try lane.outsideTransaction { session -> Bool in
                    if wasLeader {
                        _ = try session.run("SELECT 1", [])
                        return true
                    }
                    let rows = try session.rows("SELECT pg_try_advisory_lock(hashtextextended(?, 0)) AS won", [key])
                    return try rows.first?.get("won", as: Bool.self) ?? false
                }
            }) ?? false
        held.withLock { $0 = leads }
        if leads != wasLeader {
            logger.notice(leads ? "took the lead" : "lost the lead", metadata: ["job": "\(key)"])
        }
        return leads
    }

    /// Gives the lead up (at shutdown), so that another process takes over at once. (A
    /// process that dies gives it up when the server notices its connection closed.)
    public func resign() async {
        guard held.withLock({ $0 }) else { return }
        _ = try? await lane.thread.run { [lane, key] in
            _ = try? lane.outsideTransaction { session in
                try session.run("SELECT pg_advisory_unlock(hashtextextended(?, 0))", [.text(key)])
            }
            lane.disconnect()
        }
        held.withLock { $0 = false }
        logger.notice("gave up the lead", metadata: ["job": "\(key)"])
    }
}

extension PostgresPipelineDatabase {
    /// Leadership of the job `name` among every process on this database.
    public func leadership(of name: String) -> PostgresLeadership {
        PostgresLeadership(location: location, name: name, logger: logger)
    }
}
