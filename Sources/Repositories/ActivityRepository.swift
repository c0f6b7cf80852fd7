import Database
import Foundation

// MARK: - Activity over time: what the console's charts draw

/// Counts and sums per hour (the last 24 hours) or per day (the last 30 days), as the
/// console's overview charts them: receipts by outcome, credited value per currency,
/// refunds, dead letters by reason. One snapshot, four grouped queries over the window's
/// rows; empty buckets are zeros, so every series has one value per bucket.
public struct ActivityRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    public enum Window: String, Sendable, CaseIterable {
        /// 24 hourly buckets.
        case day = "24h"
        /// 30 daily buckets.
        case month = "30d"

        var hourly: Bool { self == .day }
        var buckets: Int { hourly ? 24 : 30 }
        var bucketSeconds: TimeInterval { hourly ? 3600 : 86_400 }
    }

    /// One named line of values, one per bucket.
    public struct Series: Hashable, Sendable {
        public var name: String
        public var values: [Int]
    }

    public struct Activity: Hashable, Sendable {
        public var window: Window
        /// Each bucket's start, oldest first.
        public var buckets: [Date]
        /// By outcome: credited, rejected, dead, in progress.
        public var receipts: [Series]
        /// Purchases' credited amounts, by currency.
        public var credited: [Series]
        /// Refunds and revokes, counted.
        public var refunds: [Series]
        /// Dead letters, by reason.
        public var deadLetters: [Series]
    }

    /// How much later than an entry written after it a ledger entry may be dated (a writer
    /// waiting for the lock, a host's clock): ten minutes, beside windows of a day or more.
    static let ledgerSlack: TimeInterval = 600

    public func activity(_ window: Window, now: Date) async throws -> Activity {
        let step = window.bucketSeconds
        let last = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / step).rounded(.down) * step)
        let buckets = (0..<window.buckets).reversed().map { last.addingTimeInterval(-Double($0) * step) }
        let start = buckets[0]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = window.hourly ? "yyyy-MM-dd HH" : "yyyy-MM-dd"
        let index = Dictionary(uniqueKeysWithValues: buckets.enumerated().map { (formatter.string(from: $1), $0) })
        // Receipt ids are time-ordered: the window's receipts are a range of the primary key.
        let firstID = ReceiptRepository.firstID(since: start)
        let rows = try await database.snapshot { db in
            // Ledger entries are numbered as written: the window's are a range of the key too.
            let firstEntry = try await db.firstID(
                of: "ledger_entries", datedBy: "created_at", since: start, slack: Self.ledgerSlack)
            let created = db.dialect.truncated("created_at", toHour: window.hourly)
            let dead = db.dialect.truncated("dead_at", toHour: window.hourly)
            return (
                receipts: try await db.rows(
                    """
                    SELECT \(created) AS bucket, CASE WHEN status IN ('credited', 'rejected', 'dead') THEN status
                        ELSE 'in progress' END AS series, COUNT(*) AS value
                    FROM receipts WHERE id >= ? AND created_at >= ? GROUP BY 1, 2
                    """, [firstID, start]),
                credited: try await db.rows(
                    """
                    SELECT \(created) AS bucket, currency AS series, CAST(SUM(amount) AS BIGINT) AS value
                    FROM ledger_entries WHERE id >= ? AND kind = 'purchase' AND created_at >= ? GROUP BY 1, 2
                    """, [firstEntry, start]),
                refunds: try await db.rows(
                    """
                    SELECT \(created) AS bucket, kind AS series, COUNT(*) AS value
                    FROM ledger_entries WHERE id >= ? AND kind IN ('refund', 'revoke') AND created_at >= ?
                    GROUP BY 1, 2
                    """, [firstEntry, start]),
                deadLetters: try await db.rows(
                    """
                    SELECT \(dead) AS bucket, reason AS series, COUNT(*) AS value
                    FROM dead_letters WHERE dead_at >= ? GROUP BY 1, 2
                    """, [start])
            )
        }
        func series(_ rows: [SQLRow], order: [String] = []) throws -> [Series] {
            var values: [String: [Int]] = [:]
            for row in rows {
                guard let at = index[try row.get("bucket", as: String.self)] else { continue }
                let name: String = try row.get("series")
                values[name, default: Array(repeating: 0, count: buckets.count)][at] += try row.get(
                    "value", as: Int.self)
            }
            let rank = { (name: String) in order.firstIndex(of: name) ?? order.count }
            return values.map { Series(name: $0.key, values: $0.value) }
                .sorted { (rank($0.name), $0.name) < (rank($1.name), $1.name) }
        }
        return Activity(
            window: window, buckets: buckets,
            receipts: try series(rows.receipts, order: ["credited", "in progress", "rejected", "dead"]),
            credited: try series(rows.credited), refunds: try series(rows.refunds, order: ["refund", "revoke"]),
            deadLetters: try series(rows.deadLetters))
    }
}
