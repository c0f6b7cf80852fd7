import Database
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseSQLite
@testable import DatabaseTesting
@testable import Repositories

@Suite struct MigrationTests {
    static let tables: Set<String> = [
        "accounts", "receipts", "balances", "entitlements", "store_transactions", "receipt_transactions",
        "ledger_entries", "notification_outbox", "store_notifications", "dead_letters",
    ]
    static let migrations = [
        "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17",
        "v18", "v19", "v20", "v21", "v22",
    ]

    /// The migrations the file records, in the order they ran.
    static func recordedMigrations(_ database: any SQLDatabase) async throws -> [String] {
        try await database.snapshot { db in
            try await db.rows("SELECT identifier FROM grdb_migrations").map {
                try $0.get("identifier", as: String.self)
            }
        }
    }

    /// Runs `script` in one transaction on a file an earlier release left, one statement at
    /// a time (`;` ends each, and no literal holds one), each taking its `?`s' values from
    /// `arguments` in order.
    static func write(_ script: String, _ arguments: [String], to file: SQLiteFile) async throws {
        var remaining = arguments[...]
        var statements: [(sql: String, arguments: SQLArguments)] = []
        for sql in script.split(separator: ";").map(String.init)
        where !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let count = sql.filter { $0 == "?" }.count
            statements.append((sql, remaining.prefix(count).map { $0 }))
            remaining = remaining.dropFirst(count)
        }
        #expect(remaining.isEmpty, "more arguments than placeholders")
        let prepared = statements
        try await file.transaction { db in
            for statement in prepared { try await db.execute(statement.sql, statement.arguments) }
        }
    }

    @Test func migrationsCreateTheSchemaInAnEmptyFile() async throws {
        // Given an empty directory
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // When the database is opened for the first time
        let database = try SQLiteDatabase(path: path)

        // Then every table exists and each migration is recorded once
        let tables = try await database.snapshot { db in
            try await Set(
                db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").map {
                    try $0.get("name", as: String.self)
                })
        }
        let migrations = try await Self.recordedMigrations(database)
        #expect(Self.tables.isSubset(of: tables), "missing: \(Self.tables.subtracting(tables))")
        #expect(migrations == Self.migrations)

        // And the writer runs in WAL mode, syncing at every commit, with foreign keys and a busy timeout
        let settings = try database.connectionSettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2, "expected FULL, got \(settings)")
        #expect(settings.foreignKeys)
        #expect(settings.busyTimeoutMilliseconds == 10_000)
    }

    @Test func reopeningTheDatabaseIsIdempotent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // Given a database that holds a receipt
        do {
            let database = try SQLiteDatabase(path: path)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
        }

        // When it is opened twice more
        _ = try SQLiteDatabase(path: path)
        let reopened = try SQLiteDatabase(path: path)

        // Then the migrations are still recorded once, no table is doubled, and the receipt is there
        let migrations = try await Self.recordedMigrations(reopened)
        let receiptTables = try await reopened.snapshot { db in
            try await db.value("SELECT COUNT(*) FROM sqlite_master WHERE name = 'receipts'", as: Int.self)
        }
        #expect(migrations == Self.migrations)
        #expect(receiptTables == 1)
        #expect(try await ReceiptRepository(reopened).receipt(id: "r1")?.status == .received)
    }

    /// Without the retry in `SQLiteDatabase.init`, about one round in eight fails with
    /// "table accounts already exists"; twenty rounds make that near certain to show.
    @Test(arguments: 0..<20) func concurrentFirstOpensOfOneFileAllSucceed(_ round: Int) async throws {
        // Given a new file that several "processes" open at the same moment
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        let failures = Failures()

        // When sixteen connections race to create the schema
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                _ = try SQLiteDatabase(path: path)
            } catch {
                failures.append("\(error)")
            }
        }

        // Then none failed and the schema was migrated once
        #expect(failures.all.isEmpty)
        let migrations = try await Self.recordedMigrations(SQLiteDatabase(path: path))
        #expect(migrations == Self.migrations)
    }

    @Test func v2MigratesAV1DatabaseKeepingItsBooks() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // Given a database at v1 holding a credited coin pack, a credited subscription, a
        // cancelled transaction and their webhooks, as the v1 fulfiller wrote them
        do {
            let file = try SQLiteFile(path: path)
            try file.migrate(upTo: 1)
            try await Self.write(
                """
                INSERT INTO accounts (id, created_at) VALUES ('a1', '2025-06-15 15:06:40.000');
                INSERT INTO receipts (id, account_id, kind, payload, payload_hash, status, attempts,
                    request_hash, created_at, updated_at)
                VALUES ('r1', 'a1', 'legacy', 'p1', ?, 'credited', 1, ?, '2025-06-15 15:06:40.000',
                    '2025-06-15 15:06:40.000');
                INSERT INTO apple_transactions (transaction_id, original_transaction_id, product_id, quantity,
                    receipt_id, account_id, expires_date, state, created_at, updated_at)
                VALUES
                    ('t1', 't1', 'com.example.coins100', 1, 'r1', 'a1', NULL, 'credited',
                        '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000'),
                    ('o1', 'o1', 'com.example.vip.monthly', 1, 'r1', 'a1', '2025-07-15 15:06:40.000',
                        'credited', '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000'),
                    ('t9', 't9', 'com.example.coins100', 1, 'r1', 'a1', NULL, 'refunded',
                        '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000');
                INSERT INTO receipt_transactions (receipt_id, transaction_id, product_id, outcome, currency,
                    amount, entitlement, expires_at)
                VALUES
                    ('r1', 't1', 'com.example.coins100', 'credited', 'coins', 100, NULL, NULL),
                    ('r1', 'o1', 'com.example.vip.monthly', 'credited', NULL, NULL, 'vip',
                        '2025-07-15 15:06:40.000'),
                    ('r1', 't9', 'com.example.coins100', 'refunded', NULL, NULL, NULL, NULL);
                INSERT INTO ledger_entries (account_id, currency, amount, kind, receipt_id, transaction_id,
                    created_at)
                VALUES ('a1', 'coins', 100, 'purchase', 'r1', 't1', '2025-06-15 15:06:40.000');
                INSERT INTO balances (account_id, currency, amount) VALUES ('a1', 'coins', 100);
                INSERT INTO entitlements (account_id, name, expires_at, original_transaction_id, updated_at)
                VALUES ('a1', 'vip', '2025-07-15 15:06:40.000', 'o1', '2025-06-15 15:06:40.000');
                INSERT INTO notification_outbox (id, type, receipt_id, account_id, body, status, attempts,
                    next_attempt_at, created_at)
                VALUES ('evt_1', 'receipt.credited', 'r1', 'a1', '{}', 'pending', 0,
                    '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000');
                """,
                [Fixture.hash("p1"), Fixture.hash("p1")], to: file)
        }

        // When the current program opens it (twice)
        _ = try SQLiteDatabase(path: path)
        let database = try SQLiteDatabase(path: path)

        // Then v2 is recorded once after v1, and the books are as they were
        let migrations = try await Self.recordedMigrations(database)
        #expect(migrations == Self.migrations)
        let account = try #require(try await LedgerRepository(database).account(id: "a1"))
        #expect(account.balances == ["coins": 100])
        #expect(account.ledger.map(\.transactionID) == ["t1"])
        #expect(
            try await ReceiptRepository(database).receipt(id: "r1")?.transactions.map(\.outcome) == [
                .credited, .credited, .refunded,
            ])
        #expect(try await OutboxRepository(database).dueWebhooks(now: Fixture.t0, limit: 10).map(\.id) == ["evt_1"])
        #expect(try await LedgerRepository(database).audit() == [])

        // And what v1 credited can be refunded through v2: the coins, and the entitlement
        // v1 granted (known to v2 from the receipt's record of it)
        try await database.acceptNewNotifications(["n1", "n2"])
        let now = Fixture.t0.addingTimeInterval(60)
        let results = try await SettlementRepository(database).apply(
            [
                Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: now)),
                Fixture.notified(
                    "n2", "REFUND", uuid: "U2", Fixture.purchase("o1", product: Fixture.vip, cancelled: now)),
            ], catalog: Fixture.catalog, now: now)
        #expect(
            results == [
                .notificationApplied(notificationID: "n1", status: .applied, reason: nil),
                .notificationApplied(notificationID: "n2", status: .applied, reason: nil),
            ])
        let refunded = try #require(try await LedgerRepository(database).account(id: "a1"))
        #expect(refunded.balances == ["coins": 0])
        #expect(refunded.entitlements == [.init(name: "vip", expiresAt: now)])
        #expect(try await LedgerRepository(database).audit() == [])
    }

    @Test func theSchemaRefusesNonsense() async throws {
        try await withTemporaryDatabase { database in
            // Given a database with an account and a receipt
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            func execute(_ sql: String) async throws {
                try await database.transaction { db in try await db.execute(sql) }
            }

            // Then an unknown status is refused
            await #expect(throws: SQLError.self) {
                try await execute("UPDATE receipts SET status = 'lost' WHERE id = 'r1'")
            }
            // And a rejection without a reason
            await #expect(throws: SQLError.self) {
                try await execute("UPDATE receipts SET status = 'rejected', reason = NULL WHERE id = 'r1'")
            }
            // And a balance for an account that does not exist
            await #expect(throws: SQLError.self) {
                try await execute("INSERT INTO balances (account_id, currency, amount) VALUES ('ghost', 'coins', 1)")
            }
            // And a purchase that credits nothing
            await #expect(throws: SQLError.self) {
                try await execute(
                    """
                    INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at)
                    VALUES ('a1', 'coins', 0, 'purchase', 't1', '2025-01-01 00:00:00.000')
                    """)
            }
            // And a payload hash that is not a SHA-256
            await #expect(throws: SQLError.self) {
                try await execute("UPDATE receipts SET payload_hash = 'not-hex' WHERE id = 'r1'")
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

extension MigrationTests {
    @Test func aV4DatabaseOpensWithItsBooksAndSettlesThroughTheEngine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // Given a database at v4, as the last release wrote it: a coin pack credited by an
        // order, a subscription, a binding conflict, an archived dead letter, and webhooks
        do {
            let file = try SQLiteFile(path: path)
            try file.migrate(upTo: 4)
            try await Self.write(
                """
                INSERT INTO accounts (id, created_at) VALUES ('a1', '2025-06-15 15:06:40.000'),
                    ('b1', '2025-06-15 15:06:40.000');
                INSERT INTO receipts (id, account_id, kind, payload, payload_hash, status, attempts,
                    request_hash, created_at, updated_at, order_id, reason)
                VALUES ('r1', 'a1', 'legacy', 'p1', ?, 'credited', 1, ?, '2025-06-15 15:06:40.000',
                    '2025-06-15 15:06:40.000', 'o-1', NULL),
                    ('r2', 'b1', 'legacy', 'p2', ?, 'dead', 6, ?, '2025-06-15 15:06:40.000',
                    '2025-06-15 15:06:40.000', NULL, 'attempts_exhausted: http_503');
                INSERT INTO app_account_tokens (token, account_id, created_at)
                VALUES ('00000000-0000-0000-0000-0000000000a1', 'a1', '2025-06-15 15:06:40.000');
                INSERT INTO orders (id, account_id, product_id, apple_product_id, app_account_token,
                    first_purchase, status, created_at, expires_at, closed_at, close_reason, receipt_id,
                    transaction_id, credited_product_id)
                VALUES ('o-1', 'a1', 'com.example.coins100', 'com.example.coins100',
                    '00000000-0000-0000-0000-0000000000a1', 0, 'fulfilled', '2025-06-15 15:06:40.000',
                    '2025-06-15 15:36:40.000', '2025-06-15 15:06:40.000', 'paid', 'r1', 't1',
                    'com.example.coins100');
                INSERT INTO apple_transactions (transaction_id, original_transaction_id, product_id, quantity,
                    receipt_id, account_id, expires_date, state, entitlement, created_at, updated_at,
                    catalog_product_id, order_id, binding)
                VALUES
                    ('t1', 't1', 'com.example.coins100', 1, 'r1', 'a1', NULL, 'credited', NULL,
                        '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000', 'com.example.coins100', 'o-1',
                        'order'),
                    ('s1', 's1', 'com.example.vip.monthly', 1, 'r1', 'a1', '2025-07-15 15:06:40.000',
                        'credited', 'vip', '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000',
                        'com.example.vip.monthly', NULL, 'submitter');
                INSERT INTO receipt_transactions (receipt_id, transaction_id, product_id, outcome, currency,
                    amount, entitlement, expires_at)
                VALUES
                    ('r1', 't1', 'com.example.coins100', 'credited', 'coins', 100, NULL, NULL),
                    ('r1', 's1', 'com.example.vip.monthly', 'credited', NULL, NULL, 'vip',
                        '2025-07-15 15:06:40.000');
                INSERT INTO ledger_entries (account_id, currency, amount, kind, receipt_id, transaction_id,
                    created_at)
                VALUES ('a1', 'coins', 100, 'purchase', 'r1', 't1', '2025-06-15 15:06:40.000');
                INSERT INTO balances (account_id, currency, amount) VALUES ('a1', 'coins', 100);
                INSERT INTO entitlements (account_id, name, expires_at, original_transaction_id, updated_at)
                VALUES ('a1', 'vip', '2025-07-15 15:06:40.000', 's1', '2025-06-15 15:06:40.000');
                INSERT INTO binding_conflicts (transaction_id, original_transaction_id, receipt_id,
                    claimant_account_id, credited_account_id, binding, created_at)
                VALUES ('t1', 't1', 'r1', 'b1', 'a1', 'order', '2025-06-15 15:06:40.000');
                INSERT INTO dead_letters (id, receipt_id, account_id, reason, attempts, body, headers,
                    dead_at, status, created_at)
                VALUES ('dl_1', 'r2', 'b1', 'attempts_exhausted: http_503', 6, X'7B7D', '{}',
                    '2025-06-15 15:06:40.000', 'waiting', '2025-06-15 15:06:40.000');
                INSERT INTO notification_outbox (id, type, receipt_id, account_id, body, status, attempts,
                    next_attempt_at, created_at, delivered_at)
                VALUES ('evt_1', 'receipt.credited', 'r1', 'a1', '{}', 'delivered', 1,
                    NULL, '2025-06-15 15:06:40.000', '2025-06-15 15:06:41.000'),
                    ('evt_2', 'receipt.dead', 'r2', 'b1', '{}', 'pending', 0,
                    '2025-06-15 15:06:40.000', '2025-06-15 15:06:40.000', NULL);
                """,
                [Fixture.hash("p1"), Fixture.hash("p1"), Fixture.hash("p2"), Fixture.hash("p2")], to: file)
        }

        // When the current program opens it
        let database = try SQLiteDatabase(path: path)

        // Then every migration is recorded once, and the books, orders, conflicts and letters are as they were
        let migrations = try await Self.recordedMigrations(database)
        #expect(migrations == Self.migrations)
        let account = try #require(try await LedgerRepository(database).account(id: "a1"))
        #expect(account.balances == ["coins": 100])
        #expect(account.entitlements.map(\.name) == ["vip"])
        #expect(try await OrderRepository(database).order(id: "o-1", now: Fixture.t0)?.status == .fulfilled)
        #expect(
            try await OrderRepository(database).bindingConflicts(involving: "t1").map(\.creditedAccountID) == ["a1"])
        #expect(
            try await DeadLetterRepository(database).deadLetter(id: "dl_1")?.reason == "attempts_exhausted: http_503")
        let findings = try await LedgerRepository(database).audit()
        #expect(findings == [], "\(findings)")

        // And the engine settles on what v4 wrote: the order's purchase is known (a resent
        // receipt credits nothing), and a refund takes back exactly the v4 credit, once
        try await database.acceptNew([Fixture.receipt("r3", account: "b1")])
        try await database.acceptNewNotifications(["n1"])
        let now = Fixture.t0.addingTimeInterval(60)
        let results = try await SettlementRepository(database).apply(
            [
                Fixture.valid("r3", account: "b1", [Fixture.purchase("t1")]),
                Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: now)),
            ], catalog: Fixture.catalog, now: now)
        #expect(
            results == [
                .applied(receiptID: "r3", status: .rejected, reason: "already_credited"),
                .notificationApplied(notificationID: "n1", status: .applied, reason: nil),
            ])
        #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 0])
        #expect(try await LedgerRepository(database).audit() == [])
    }
}
