import Database
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabasePostgres
@testable import DatabaseSQLite
@testable import Repositories

/// v18 on books of releases before it (issue 53): the previous releases' SQLite file and
/// PostgreSQL database, given rows of a second app first (as an apps file wrote them: its
/// accounts `racer/…`). After the upgrade each token and store transaction carries the app of
/// its account (a transaction no account holds, its receipt's), every notification the
/// default app's, and the same UUID can then be a token of each app.
@Suite struct TenancyUpgradeTests {
    static let racerToken = "7d2c3e1a-0000-4000-8000-000000000001"
    static let puzzleToken = "7d2c3e1a-0000-4000-8000-000000000002"

    /// Racer's rows in the old releases' shape: a player, a token of it and one of the
    /// default app's player-1, a receipt and its transaction moved to racer, and a transaction
    /// no account holds whose receipt is racer's.
    static let racerRows = [
        "INSERT INTO accounts (id, created_at) VALUES ('racer/player-9', '2025-06-01 00:00:00.000')",
        """
        INSERT INTO app_account_tokens (token, account_id, created_at)
        VALUES ('\(racerToken)', 'racer/player-9', '2025-06-01 00:00:00.000'),
               ('\(puzzleToken)', 'player-1', '2025-06-01 00:00:00.000')
        """,
        // Player-2's receipts become racer's; its first transaction stays credited, to racer's
        // player, its last one held by no account.
        """
        UPDATE receipts SET account_id = 'racer/player-9'
        WHERE id IN (SELECT receipt_id FROM apple_transactions WHERE account_id = 'player-2')
        """,
        """
        UPDATE apple_transactions SET account_id = NULL, state = 'unpaid', entitlement = NULL
        WHERE transaction_id = (SELECT MAX(transaction_id) FROM apple_transactions WHERE account_id = 'player-2')
        """,
        """
        UPDATE apple_transactions SET account_id = 'racer/player-9'
        WHERE transaction_id = (SELECT MIN(transaction_id) FROM apple_transactions WHERE account_id = 'player-2')
        """,
    ]

    @Test func anOldSQLiteFilesRowsCarryTheirAppsAfterTheUpgrade() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        try FileManager.default.copyItem(
            atPath: SchemaHistoryTests.fixtures.appendingPathComponent("pipeline-v9.sqlite").path, toPath: path)
        try await SQLiteFile(path: path).transaction { db in
            for statement in Self.racerRows { try await db.execute(statement) }
        }
        try await Self.check(try SQLiteDatabase(path: path))
    }

    @Test func anOldPostgreSQLDatabasesRowsCarryTheirAppsAfterTheUpgrade() async throws {
        try await PostgresFixture.withDatabase { database in
            try await SchemaUpgradeTests.load("postgres-schema6.sql", into: database)
            try await database.transaction { db in
                for statement in Self.racerRows { try await db.execute(statement) }
            }
            try await database.migrate()
            try await Self.check(database)
        }
    }

    static func check(_ database: any SQLDatabase) async throws {
        let (tokens, transactions, notifications) = try await database.snapshot { db in
            (
                try await db.rows("SELECT app, token, account_id FROM app_account_tokens ORDER BY token").map {
                    "\(try $0.get("app", as: String.self)) \(try $0.get("token", as: String.self))"
                },
                try await db.rows(
                    """
                    SELECT t.app, t.account_id, r.account_id AS receipt_account FROM store_transactions t
                    JOIN receipts r ON r.id = t.receipt_id ORDER BY t.transaction_id
                    """
                ).map {
                    [
                        try $0.get("app", as: String.self), try $0.get("account_id", as: String?.self) ?? "none",
                        try $0.get("receipt_account", as: String.self),
                    ].joined(separator: " ")
                },
                try await db.rows("SELECT DISTINCT app FROM store_notifications").map {
                    try $0.get("app", as: String.self)
                }
            )
        }
        // Then each row carries the app of its account, or of its receipt's
        #expect(tokens == ["racer \(racerToken)", " \(puzzleToken)"])
        #expect(
            transactions.sorted() == [
                " player-1 player-1", " player-1 player-1", "racer none racer/player-9",
                "racer racer/player-9 racer/player-9",
            ], "\(transactions)")
        #expect(notifications.allSatisfy { $0.isEmpty })

        // And the same UUID is a token of each app: racer's is not the default app's
        let stored = try await database.transaction { db in
            try await db.insert(
                AppAccountToken("player-2", token: racerToken, createdAt: Date()), into: "app_account_tokens")
            return try await db.rows("SELECT app FROM app_account_tokens WHERE token = ? ORDER BY app", [racerToken])
                .map { try $0.get("app", as: String.self) }
        }
        #expect(stored == ["", "racer"])
        // And a token whose app is not its account's is refused by the schema
        await #expect(throws: (any Error).self) {
            try await database.transaction { db in
                try await db.insert(
                    AppAccountToken(
                        app: "racer", token: "7d2c3e1a-0000-4000-8000-000000000003", accountID: "player-2",
                        createdAt: Date()), into: "app_account_tokens")
            }
        }
    }
}
