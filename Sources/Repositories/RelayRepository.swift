import Database
import Foundation

/// The relays of the intakes that share a database, and which committed rows each publishes.
///
/// Each intake's relay publishes what its intake committed (the row names it, schema v19)
/// and nothing else while it is alive, so that a slow mark on one intake's fast path is never
/// published again by another's sweep. A relay says it is alive with ``beat(_:now:)``; one
/// that has not for its lease, or that left (``leave(_:)``), leaves its unpublished rows to be
/// adopted by another (``adopt(by:now:grace:lease:limit:)``), one relay each.
public struct RelayRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// Records that `relay` is alive now. A lost beat only looks like a missed one: no sync.
    public func beat(_ relay: String, now: Date) async throws {
        try await database.transaction(priority: .normal, sync: .relaxed) { db in
            try await db.execute(
                "INSERT INTO relays (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
                [relay, db.stored(now)])
        }
    }

    /// Forgets `relay` (a clean shutdown, every row of its published), and relays silent for
    /// a day, so that the table holds the running ones and a few that crashed.
    public func leave(_ relay: String, now: Date) async throws {
        try await database.transaction(priority: .normal, sync: .relaxed) { db in
            try await db.execute(
                "DELETE FROM relays WHERE id = ? OR seen_at < ?", [relay, db.stored(now.addingTimeInterval(-86_400))])
        }
    }

    /// Makes `relay` the publisher of unpublished rows that no live relay holds: rows no relay
    /// stored (written before v19, or by a job outside an intake) once older than `grace`, and
    /// rows of a relay silent for `lease` once older than `lease` (so that a relay's first
    /// rows are never taken before its first beat). Returns how many it took; on PostgreSQL,
    /// rows another relay is taking at the same moment are skipped, not taken twice.
    @discardableResult
    public func adopt(by relay: String, now: Date, grace: TimeInterval, lease: TimeInterval, limit: Int) async throws
        -> Int
    {
        try await database.transaction(priority: .normal, sync: .relaxed) { db in
            let locked = db.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
            let graceCutoff = db.stored(now.addingTimeInterval(-grace))
            let leaseCutoff = db.stored(now.addingTimeInterval(-lease))
            var taken = 0
            for (table, settled) in [
                ("receipts", "'credited', 'rejected', 'dead'"),
                ("store_notifications", "'applied', 'rejected', 'dead'"),
            ] {
                taken += try await db.execute(
                    """
                    UPDATE \(table) SET relay = ? WHERE id IN (
                        SELECT id FROM \(table)
                        WHERE published_at IS NULL AND status NOT IN (\(settled))
                          AND ((relay IS NULL AND created_at < ?)
                            OR (created_at < ? AND relay <> ?
                                AND relay NOT IN (SELECT id FROM relays WHERE seen_at >= ?)))
                        ORDER BY created_at, id LIMIT ?\(locked))
                    """, [relay, graceCutoff, leaseCutoff, relay, leaseCutoff, limit])
            }
            return taken
        }
    }
}
