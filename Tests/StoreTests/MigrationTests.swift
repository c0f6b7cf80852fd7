import Foundation
import GRDB
import Store
import Testing

@Suite struct MigrationTests {
    static let tables: Set<String> = [
        "accounts", "receipts", "balances", "entitlements", "apple_transactions", "receipt_transactions",
        "ledger_entries", "notification_outbox",
    ]

    @Test func migrationsCreateTheSchemaInAnEmptyFile() throws {
        // Given an empty directory
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // When the database is opened for the first time
        let database = try PipelineDatabase(path: path)

        // Then every table exists and v1 is recorded once
        let (tables, migrations) = try withRawConnection(path) { db in
            (
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            )
        }
        #expect(Self.tables.isSubset(of: tables), "missing: \(Self.tables.subtracting(tables))")
        #expect(migrations == ["v1"])

        // And the writer runs in WAL mode, syncing at every commit, with foreign keys and a busy timeout
        let settings = try database.connectionSettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2, "expected FULL, got \(settings)")
        #expect(settings.foreignKeys)
        #expect(settings.busyTimeoutMilliseconds == 10_000)
    }

    @Test func reopeningTheDatabaseIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // Given a database that holds a receipt
        do {
            let database = try PipelineDatabase(path: path)
            try database.acceptNew([Fixture.receipt("r1", account: "a1")])
        }

        // When it is opened twice more
        _ = try PipelineDatabase(path: path)
        let reopened = try PipelineDatabase(path: path)

        // Then the migration is still recorded once, no table is doubled, and the receipt is there
        let (migrations, receiptTables) = try withRawConnection(path) { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'receipts'")
            )
        }
        #expect(migrations == ["v1"])
        #expect(receiptTables == 1)
        #expect(try reopened.receipt(id: "r1")?.status == .received)
    }

    /// Without the retry in `PipelineDatabase.init`, about one round in eight fails with
    /// "table accounts already exists"; twenty rounds make that near certain to show.
    @Test(arguments: 0..<20) func concurrentFirstOpensOfOneFileAllSucceed(_ round: Int) throws {
        // Given a new file that several "processes" open at the same moment
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        let failures = Failures()

        // When sixteen connections race to create the schema
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                let database = try PipelineDatabase(path: path)
                _ = try database.pendingNotificationCount()
            } catch {
                failures.append("\(error)")
            }
        }

        // Then none failed and the schema was migrated once
        #expect(failures.all.isEmpty)
        let migrations = try withRawConnection(path) { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(migrations == ["v1"])
    }

    @Test func theSchemaRefusesNonsense() throws {
        try withTemporaryDatabase { database, path in
            // Given a database with an account and a receipt
            try database.acceptNew([Fixture.receipt("r1", account: "a1")])

            try withRawConnection(path) { db in
                // Then an unknown status is refused
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "UPDATE receipts SET status = 'lost' WHERE id = 'r1'")
                }
                // And a rejection without a reason
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "UPDATE receipts SET status = 'rejected', reason = NULL WHERE id = 'r1'")
                }
                // And a balance for an account that does not exist
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "INSERT INTO balances (account_id, currency, amount) VALUES ('ghost', 'coins', 1)")
                }
                // And a purchase that credits nothing
                #expect(throws: DatabaseError.self) {
                    try db.execute(
                        sql: """
                            INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at)
                            VALUES ('a1', 'coins', 0, 'purchase', 't1', '2025-01-01 00:00:00.000')
                            """)
                }
                // And a payload hash that is not a SHA-256
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "UPDATE receipts SET payload_hash = 'not-hex' WHERE id = 'r1'")
                }
            }
        }
    }
}

/// Collects failures from concurrent work.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ item: String) {
        lock.lock()
        defer { lock.unlock() }
        items.append(item)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
