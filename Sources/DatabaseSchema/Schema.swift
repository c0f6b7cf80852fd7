/// One step of the schema's history: the same change, for SQLite and for PostgreSQL, under
/// one version number.
public struct SchemaMigration: Sendable {
    /// Its place in the history. SQLite's migrator records it as `"v\(version)"` (GRDB's
    /// `grdb_migrations`), PostgreSQL's as a row of `schema_migrations`.
    public let version: Int
    /// What it brings, in a line.
    public let summary: String
    /// SQLite's statements, run in order in one transaction.
    public let sqlite: [String]
    /// PostgreSQL's statements, run in order in the migrating transaction.
    public let postgres: [String]

    public init(version: Int, summary: String, sqlite: [String], postgres: [String]) {
        self.version = version
        self.summary = summary
        self.sqlite = sqlite
        self.postgres = postgres
    }
}

/// The schema of the pipeline's database, one migration at a time, for both backends.
///
/// A migration never changes once it has shipped: a change to the schema is a new one
/// appended to ``migrations``. Each runs only on a database at the version before it, so
/// its statements are static text, table rebuilds included (SQLite cannot alter a CHECK:
/// a new table, its rows copied with their rowids, the old one dropped, the new one
/// renamed, its indexes and triggers made again).
///
/// SQLite's text is what GRDB's table DSL executed in the releases that wrote these
/// migrations with it, to the byte: SQLite keeps that text in `sqlite_master`, and the
/// tests compare a fresh file's with the one a release made (`Tests/DatabaseTests/Fixtures`).
///
/// PostgreSQL came later, in one step that created SQLite's v4 schema at once: versions
/// 1-3 have no PostgreSQL statements of their own (their tables only exist there in their
/// v4 shape), version 4 holds that step, and 5-9 hold SQLite's 5-9.
public enum Schema {
    /// Every migration, oldest first; versions are 1, 2, 3, ... without gaps (but for 13
    /// while it is on another branch).
    public static let migrations: [SchemaMigration] = [
        version1, version2, version3, version4, version5, version6, version7, version8, version9, version10,
        version11, version12, version13, version14, version15, version16, version17, version18, version19, version20,
        version21, version22,
    ]

    /// The version a database is at once every migration has run.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }
}
