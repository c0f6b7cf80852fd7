import Database
import DatabaseSchema
import SettlementWriter

/// Brings a PostgreSQL database to ``Schema/latestVersion``: the `postgres` statements of
/// every migration it lacks, each version recorded in `schema_migrations`.
///
/// Releases before the numbers were unified recorded PostgreSQL's own versions 1-6 in
/// `iap_schema_migrations`; their version N is version N + 3 (their first step was SQLite's
/// v1-v4 at once). Migrating renumbers such a database in place, in the same transaction.
enum PostgresMigrator {
    /// An arbitrary constant that names the migration lock among advisory locks.
    static let lock: Int64 = 0x6961_705F_6D69_6772  // "iap_migr"
    /// Where releases before the unified numbers recorded theirs, and how far behind those are.
    static let oldTable = "iap_schema_migrations"
    static let oldOffset = 3

    /// Migrates, in the caller's write transaction: one migrator at a time across processes,
    /// and nothing of it stays if a statement fails.
    /// - Throws: ``PostgresStoreError/newerSchema(found:known:)`` when the database is at a
    ///   version this program does not know.
    static func migrate(_ session: any SQLSession) async throws {
        // One migrator at a time across processes; released with the transaction.
        try await session.execute("SELECT pg_advisory_xact_lock(\(lock))")
        let numberedTheOldWay = try await exists(oldTable, session)
        let numbered = try await exists("schema_migrations", session)
        try await session.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
              version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
            """)
        if numberedTheOldWay, !numbered {
            // Versions 1-3 are SQLite's alone: they count as applied with the old first step.
            try await session.execute(
                """
                INSERT INTO schema_migrations (version, applied_at)
                SELECT version + \(oldOffset), applied_at FROM \(oldTable)
                UNION ALL
                SELECT early.version, first.applied_at
                FROM (VALUES (1), (2), (3)) AS early(version),
                  (SELECT applied_at FROM \(oldTable) WHERE version = 1) AS first
                """)
            try await session.execute("DROP TABLE \(oldTable)")
        }
        let current = try await version(session)
        guard current <= Schema.latestVersion else {
            throw PostgresStoreError.newerSchema(found: current, known: Schema.latestVersion)
        }
        for migration in Schema.migrations where migration.version > current {
            for statement in migration.postgres { try await session.execute(statement) }
            try await session.execute("INSERT INTO schema_migrations (version) VALUES (?)", [migration.version])
        }
    }

    /// The version the database is at; 0 for an empty database. One still numbered the old
    /// way is at its old version + 3: the same schema.
    static func version(_ session: any SQLSession) async throws -> Int {
        if try await exists("schema_migrations", session) {
            let version = try await session.value(
                "SELECT max(version) AS version FROM schema_migrations", as: Int?.self)
            return (version ?? nil) ?? 0
        }
        if try await exists(oldTable, session),
            let old = try await session.value("SELECT max(version) AS version FROM \(oldTable)", as: Int?.self) ?? nil
        {
            return old + oldOffset
        }
        return 0
    }

    private static func exists(_ table: String, _ session: any SQLSession) async throws -> Bool {
        try await session.value("SELECT to_regclass(?) IS NOT NULL AS found", [table], as: Bool.self) == true
    }
}
