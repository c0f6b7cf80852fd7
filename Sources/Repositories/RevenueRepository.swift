import Database
import Foundation
import Settlement

/// The revenue ledger as reports read it: totals by currency (never summed across
/// currencies), over a span of time, for one app or every app.
public struct RevenueRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// What one currency's entries add up to.
    public struct Total: Hashable, Sendable {
        public var currency: String
        /// Payments less what take-backs gave back, reversals added: what the players paid and kept paid.
        public var gross: Int64
        public var proceeds: Int64
        /// What refunds, revocations and chargebacks gave back (negative), reversals deducted.
        public var givenBack: Int64
        /// Payments (purchases and renewals).
        public var payments: Int
        /// Whether some of it was priced from the catalog.
        public var estimated: Bool
    }

    /// The totals of the entries written in `since..<until`, by currency (of `app`, when
    /// given: `""` is the default app's), in currency order.
    public func totals(since: Date, until: Date, app: String? = nil) async throws -> [Total] {
        try await database.snapshot { db in
            let (low, high) = try await Self.ids(since: since, until: until, db)
            let arguments: SQLArguments = [low, high, since, until] + (app.map { [$0] } ?? [])
            return try await db.rows(
                """
                SELECT currency, SUM(gross) AS gross, SUM(proceeds) AS proceeds,
                  SUM(CASE WHEN kind IN ('refund', 'revocation', 'reversal') THEN gross ELSE 0 END) AS given_back,
                  SUM(CASE WHEN kind IN ('purchase', 'renewal') THEN 1 ELSE 0 END) AS payments,
                  MAX(CASE WHEN estimated THEN 1 ELSE 0 END) AS estimated
                FROM revenue_entries
                WHERE id >= ? AND id < ? AND created_at >= ? AND created_at < ?\(app == nil ? "" : " AND app = ?")
                GROUP BY currency ORDER BY currency
                """, arguments
            ).map { row in
                Total(
                    currency: try row.get("currency"), gross: try row.get("gross"), proceeds: try row.get("proceeds"),
                    givenBack: try row.get("given_back"), payments: try row.get("payments"),
                    estimated: try row.get("estimated", as: Int.self) == 1)
            }
        }
    }

    /// One stored entry, with its place in the ledger (its id: an export's cursor) and time.
    public struct Row: Sendable {
        public var id: Int64
        public var createdAt: Date
        public var entry: RevenueEntry
    }

    /// The entries after `cursor` (an entry's id; 0 for the first), written in
    /// `since..<until` (of `app`, when given), at most `limit`, in ledger order: what an
    /// export reads page by page, in memory one page at a time, resumable from its last id.
    public func page(
        after cursor: Int64, within ids: ExportIDs? = nil, since: Date, until: Date, app: String? = nil,
        limit: Int = 1000
    ) async throws -> [Row] {
        // A page read alone finds its span first; an export found it once for all its pages.
        let span: ExportIDs
        if let ids { span = ids } else { span = try await self.ids(since: since, until: until) }
        // Nothing follows the last id there can be (a cursor is the caller's input).
        guard let first = span.first(after: cursor) else { return [] }
        return try await database.snapshot { db in
            let arguments: SQLArguments = [first, span.high, since, until] + (app.map { [$0] } ?? []) + [limit]
            return try await db.rows(
                Self.pageQuery(app: app != nil), arguments
            ).compactMap { row in
                guard let entry = try RevenueEntry(row: row) else { return nil }
                return Row(id: try row.get("id"), createdAt: try row.get("created_at"), entry: entry)
            }
        }
    }

    /// What ``page(after:since:until:app:limit:)`` asks.
    static func pageQuery(app: Bool) -> String {
        """
        SELECT id, created_at, \(RevenueEntry.columns) FROM revenue_entries
        WHERE id >= ? AND id < ? AND created_at >= ? AND created_at < ?\(app ? " AND app = ?" : "")
        ORDER BY id LIMIT ?
        """
    }

    /// How much later than an entry written after it an entry may be dated (a writer waiting
    /// for the lock, a host's clock): ten minutes, as the coin ledger's.
    static let slack: TimeInterval = 600

    /// Where the entries written in `since..<until` lie in the key (an export finds it once).
    public func ids(since: Date, until: Date) async throws -> ExportIDs {
        try await database.snapshot { db in
            let (low, high) = try await Self.ids(since: since, until: until, db)
            return ExportIDs(low: low, high: high)
        }
    }

    /// The ids of the entries dated in `since..<until` are in `low..<high`: entries are
    /// numbered as written, so a span of time is a range of the primary key (or of
    /// `(app, id)`), read without an index on the date whatever the ledger's size.
    static func ids(since: Date, until: Date, _ db: any SQLSession) async throws -> (low: Int64, high: Int64) {
        try await db.idRange(of: "revenue_entries", datedBy: "created_at", since: since, until: until, slack: slack)
    }

    /// The ledger by day (`revenue_days`), or by month: the days `from...through`
    /// (`yyyy-MM-dd`, UTC), of `app` when given, in day order; `byMonth` sums each month's
    /// days into one row dated its first day. A range of the rollup's primary key: a year of
    /// it is a few thousand rows whatever the ledger's size, which is what the console's
    /// charts read.
    public func days(from: String, through: String, app: String? = nil, byMonth: Bool = false) async throws
        -> [RevenueDay]
    {
        let arguments: SQLArguments = [from, through] + (app.map { [$0] } ?? [])
        return try await database.snapshot { db in
            try await db.rows(Self.daysQuery(app: app != nil, byMonth: byMonth), arguments).map(RevenueDay.init(row:))
        }
    }

    /// What ``days(from:through:app:byMonth:)`` asks.
    static func daysQuery(app: Bool, byMonth: Bool) -> String {
        let day = byMonth ? "substr(day, 1, 7) || '-01'" : "day"
        let sums = RevenueDay.columns.dropFirst(4)
            .map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", ")
        return """
            SELECT \(day) AS day, app, store, currency, \(sums) FROM revenue_days
            WHERE day >= ? AND day <= ?\(app ? " AND app = ?" : "")
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            """
    }

    /// Active subscription periods and monthly recurring revenue at the start of `day`
    /// (`yyyy-MM-dd`), by app, store and currency (of `app`, when given): every earlier day's
    /// movements summed (``RevenueDay/movements(of:on:)``), where a chart over a window starts.
    public func subscriptionsBefore(_ day: String, app: String? = nil) async throws -> [RevenueDay] {
        let arguments: SQLArguments = [day] + (app.map { [$0] } ?? [])
        return try await database.snapshot { db in
            try await db.rows(Self.subscriptionsBeforeQuery(app: app != nil), arguments).map { row in
                var line = RevenueDay(
                    key: RevenueDay.Key(
                        day: day, app: try row.get("app"), store: try row.get("store"),
                        currency: try row.get("currency")))
                line.subscribers = try row.get("subscribers")
                line.recurring = try row.get("recurring")
                return line
            }
        }
    }

    /// What ``subscriptionsBefore(_:app:)`` asks: a range of the rollup's key, every day before one.
    static func subscriptionsBeforeQuery(app: Bool) -> String {
        """
        SELECT app, store, currency, CAST(SUM(subscribers) AS BIGINT) AS subscribers,
          CAST(SUM(recurring) AS BIGINT) AS recurring
        FROM revenue_days WHERE day < ?\(app ? " AND app = ?" : "")
        GROUP BY app, store, currency ORDER BY app, store, currency
        """
    }

    /// Writes the days again from the entries (``RevenueDay/rebuild(_:)``).
    /// - Returns: the days written.
    public func rebuildDays() async throws -> Int {
        try await database.transaction { db in try await RevenueDay.rebuild(db) }
    }
}
