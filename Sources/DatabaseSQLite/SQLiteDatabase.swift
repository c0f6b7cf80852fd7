import Database
import Foundation
import GRDB
import GRDBSQLite
import SettlementWriter

/// The pipeline's SQLite database: receipts, accounts, the ledger and the notification outbox.
///
/// Several processes (intake, fulfiller, notifier) open the same file, so it is a
/// `DatabasePool` in WAL mode with a busy timeout: a writer waits for another process's
/// write transaction instead of failing at once. Every public method is one transaction
/// that leaves the database consistent; none hands out the connection.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "/var/lib/iap/pipeline.sqlite")
/// let outcomes = try IntakeRepository(database).accept(batch, now: Date())
/// ```
public struct SQLiteDatabase: Sendable {
    /// Access to the database.
    private let dbWriter: any DatabaseWriter
    /// Orders this process's writes: the intake's group commit ahead of other work.
    let writeGate = WriteGate()
    /// Every process's write transactions, one at a time (see ``FileLock``).
    private let writerLock: FileLock
    /// Checkpoints the WAL outside `writerLock`.
    let checkpointer: Checkpointer
    /// Syncs the WAL outside `writerLock`, for `.durableAfterUnlock` commits; nil where the
    /// database is no plain file (those commits are synced in the lock then).
    let walSync: WALSync?
    /// Tells other processes of commits that signalled a channel; nil where the path is too
    /// long for a socket beside it.
    let bell: CommitBell?

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// - Throws: a database error when the file cannot be opened, is not an SQLite
    ///   database, or was written by a newer version of the schema.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration()) throws {
        try self.init(path: path, configuration: configuration, checkpointer: Checkpointer(path: path))
    }

    init(path: String, configuration: StoreConfiguration, checkpointer: Checkpointer) throws {
        try Self.createPrivately(path)
        // Switching a new file to WAL takes a lock SQLite does not wait for ("database is
        // locked"), so processes that open one file at the same moment open it in turn.
        let pool = try FileLock(path: path + ".migrate-lock").hold {
            try DatabasePool(path: path, configuration: Self.makeConfiguration(configuration, checkpointer))
        }
        // GRDB sets `synchronous = NORMAL` on the writer when it enables WAL, after any
        // `prepareDatabase` hook has run. With NORMAL a commit is not synced, and a power
        // loss can take back a receipt the intake already answered 202 for. FULL syncs the
        // WAL at every commit; the intake's group commit pays that once per batch.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        try Self.migrate(pool, path: path)
        self.dbWriter = pool
        self.writerLock = FileLock(path: path + ".write-lock")
        self.checkpointer = checkpointer
        self.bell = CommitBell(databasePath: path)
        self.walSync = Self.isPlainFile(path) ? WALSync(databasePath: path) : nil
    }

    /// A path naming a file, not a temporary or in-memory database or a URI.
    private static func isPlainFile(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// Creates the database file readable and writable by its owner only (0600), whatever
    /// the umask: it holds accounts and receipts. SQLite gives the `-wal` and `-shm` files
    /// it creates later the main file's mode, so they are 0600 too. An existing file keeps
    /// the mode its operator gave it.
    private static func createPrivately(_ path: String) throws {
        guard isPlainFile(path) else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return }
            throw DatabaseError(message: "cannot create the database file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // The umask can only take bits away from 0600; fchmod makes it exactly 0600 anyway.
        guard fchmod(fd, 0o600) == 0 else {
            throw DatabaseError(message: "cannot make \(path) private: \(String(cString: strerror(errno)))")
        }
        // A new file's name is durable once its directory is synced. SQLite syncs the
        // directory when it creates the WAL, not the main file: without this, a power cut
        // soon after the first start took the whole database back, commits synced or not
        // (`iap-lab chaos --power` found it).
        let parent = (path as NSString).deletingLastPathComponent
        let directory = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0, fsync(fd) == 0, fsync(directory) == 0 else {
            if directory >= 0 { close(directory) }
            throw DatabaseError(
                message: "cannot sync the new database file \(path): \(String(cString: strerror(errno)))")
        }
        close(directory)
    }

    private static func makeConfiguration(_ options: StoreConfiguration, _ checkpointer: Checkpointer)
        -> Configuration
    {
        var config = Configuration()
        // Statements are cached per connection (`cachedStatement`); they are authorized
        // once, when compiled.
        config.prepareDatabase { db in
            // 16 MiB of page cache per connection instead of SQLite's 2 MiB, for large
            // transactions. It does not last between them when another connection (another
            // process) has written meanwhile: SQLite then drops it, and the pages are read
            // again, about 80 `pread`s per fulfiller transaction at 400 receipts/s. Reading
            // through a memory map (`mmap_size`) instead cost more (BENCHMARKS.md, issue 29).
            try db.execute(sql: "PRAGMA cache_size = -16384")
            checkpointer.watch(db)
        }
        config.label = "SQLiteDatabase"
        config.busyMode = .timeout(options.busyTimeout)
        config.foreignKeysEnabled = true
        config.maximumReaderCount = options.maximumReaderCount
        return config
    }

    /// Runs the migrations. Processes that open a file at the same moment (intake,
    /// fulfiller, notifier starting together) would each see a migration as unapplied and
    /// race to create its tables, so migrating holds an exclusive lock on a file beside the
    /// database: the first migrates, the others then find every migration recorded.
    private static func migrate(_ writer: some DatabaseWriter, path: String) throws {
        let migrator = Self.migrator
        if try writer.read(migrator.hasCompletedMigrations) == false {
            try FileLock(path: path + ".migrate-lock").hold { try migrator.migrate(writer) }
        }
        if try writer.read(migrator.hasBeenSuperseded) {
            throw DatabaseError(message: "the database was migrated by a newer version of this program")
        }
    }

    // MARK: - Transactions

    /// One write transaction, run on the writer's own queue: the calling task is suspended,
    /// never its thread; on a ``WriterThread`` it runs there, inline, the thread being ours.
    func write<T: Sendable>(sync: CommitSync, _ updates: @escaping @Sendable (Database) throws -> T) async throws
        -> T
    {
        let body = { @Sendable (db: Database) throws -> T in
            let result = try self.transaction(db, sync: sync, updates)
            // On this thread (no hop to another), the other processes' writers no longer waiting.
            // A failed sync fails the call though the rows are committed: the intake answers
            // an error, its sweep publishes them, and the backend's retry finds them stored.
            if sync == .durableAfterUnlock { try walSync?.sync() }
            if sync == .relaxed { walSync?.syncSoon() }
            return result
        }
        if WriterThread.isCurrent { return try writeInline(body) }
        return try await dbWriter.writeWithoutTransaction(body)
    }

    /// GRDB's queue taken synchronously: from a ``WriterThread``, the write runs right here.
    private func writeInline<T>(_ body: (Database) throws -> T) throws -> T {
        try dbWriter.writeWithoutTransaction(body)
    }

    /// `updates` in one immediate transaction, holding the processes' write lock.
    private func transaction<T>(_ db: Database, sync: CommitSync, _ updates: (Database) throws -> T) throws -> T {
        // Unsynced at commit: relaxed, or synced by `walSync` once the lock is let go.
        let unsynced = sync == .relaxed || (sync == .durableAfterUnlock && walSync != nil)
        return try writerLock.hold {
            if unsynced { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            defer { if unsynced { try? db.execute(sql: "PRAGMA synchronous = FULL") } }
            var result: T?
            try db.inTransaction(.immediate) {
                result = try updates(db)
                return .commit
            }
            return result!
        }
    }

    /// One read transaction, on a snapshot, run on a reader's own queue.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await dbWriter.read(value)
    }

    /// The statements the writer connection holds prepared, and the bytes they take: GRDB
    /// keeps every statement it has prepared once, so this is bounded only by how few
    /// shapes the statements come in (``SQLRows``). For tests and diagnostics.
    public func preparedStatements() -> (count: Int, bytes: Int) {
        dbWriter.writeWithoutTransaction { db in
            guard let connection = db.sqliteConnection else { return (0, 0) }
            var count = 0
            var statement = sqlite3_next_stmt(connection, nil)
            while let current = statement {
                count += 1
                statement = sqlite3_next_stmt(connection, current)
            }
            var bytes: Int32 = 0
            var highwater: Int32 = 0
            sqlite3_db_status(connection, SQLITE_DBSTATUS_STMT_USED, &bytes, &highwater, 0)
            return (count, Int(bytes))
        }
    }

    /// The settings of the writer connection, for a start-up log line and for tests.
    public func connectionSettings() throws -> ConnectionSettings {
        try dbWriter.writeWithoutTransaction { db in
            try ConnectionSettings(
                journalMode: String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                synchronous: Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1,
                foreignKeys: Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false,
                busyTimeoutMilliseconds: Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0)
        }
    }
}

/// How to open a ``SQLiteDatabase``.
public struct StoreConfiguration: Hashable, Sendable {
    /// How long a write waits for another process's write transaction before failing
    /// with a transient error (``SQLError/retry(_:)``).
    public var busyTimeout: TimeInterval
    /// Connections for concurrent reads (queries from the HTTP API).
    public var maximumReaderCount: Int

    public init(busyTimeout: TimeInterval = 10, maximumReaderCount: Int = 4) {
        self.busyTimeout = busyTimeout
        self.maximumReaderCount = maximumReaderCount
    }
}

/// What the writer connection runs with.
public struct ConnectionSettings: Hashable, Sendable, CustomStringConvertible {
    /// `wal`.
    public var journalMode: String
    /// SQLite's number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    public var synchronous: Int
    public var foreignKeys: Bool
    public var busyTimeoutMilliseconds: Int

    public var description: String {
        let sync =
            ["off", "normal", "full", "extra"].indices.contains(synchronous)
            ? ["off", "normal", "full", "extra"][synchronous] : "\(synchronous)"
        return "journal_mode=\(journalMode) synchronous=\(sync) foreign_keys=\(foreignKeys ? "on" : "off") "
            + "busy_timeout=\(busyTimeoutMilliseconds)ms"
    }
}
