import Database
import Foundation
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabasePostgres
@testable import DatabaseSQLite
@testable import DatabaseTesting
@testable import Repositories

/// v14 on books written before it: the previous release's SQLite file and PostgreSQL
/// database, whose refund is made a partial one (30 %) before the upgrade. After it, the
/// refund is its transaction's step 1, the books balance, and a refund to 80 % takes the
/// next 50 % as step 2, once.
@Suite struct RefundStepsUpgradeTests {
    @Test func aPartialRefundInAnOldFileIsStepOne_andTheNextStepTakesTheDifference() async throws {
        // Given the previous release's file, its refund made a 30 % one
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        try FileManager.default.copyItem(
            atPath: SchemaHistoryTests.fixtures.appendingPathComponent("pipeline-v9.sqlite").path, toPath: path)
        let file = try SQLiteFile(path: path)
        try await file.transaction { db in
            for statement in Self.partial { try await db.execute(statement) }
        }

        // When this program opens it, and the refund goes on
        try await Self.refundFurther(try SQLiteDatabase(path: path))
    }

    @Test func aPartialRefundInAnOldPostgreSQLDatabaseIsStepOne_andTheNextStepTakesTheDifference() async throws {
        try await PostgresFixture.withDatabase { database in
            // Given the previous release's database, its refund made a 30 % one
            try await SchemaUpgradeTests.load("postgres-schema6.sql", into: database)
            try await database.transaction { db in
                for statement in Self.partial { try await db.execute(statement) }
            }

            // When it is migrated, and the refund goes on
            try await database.migrate()
            try await Self.refundFurther(database)
        }
    }

    /// Makes the fixture's one refund (all of a 100-coin credit) a 30 % one.
    static let partial = [
        """
        UPDATE balances SET amount = amount + 70 WHERE (account_id, currency) IN (
          SELECT account_id, currency FROM ledger_entries WHERE kind = 'refund')
        """,
        "UPDATE ledger_entries SET amount = -30 WHERE kind = 'refund'",
    ]

    static func refundFurther(_ database: any SQLDatabase) async throws {
        // Then the old refund is step 1 of its transaction, and the books balance
        let (account, transactionID, product, step) = try await database.snapshot { db in
            let row = try #require(
                try await db.rows(
                    """
                    SELECT l.account_id, l.transaction_id, l.step, t.product_id FROM ledger_entries l
                    JOIN store_transactions t ON t.transaction_id = l.transaction_id WHERE l.kind = 'refund'
                    """
                ).first)
            return (
                try row.get("account_id", as: String.self), try row.get("transaction_id", as: String.self),
                try row.get("product_id", as: String.self), try row.get("step", as: Int.self)
            )
        }
        #expect(step == 1)
        #expect(try await LedgerRepository(database).audit() == [])
        let before = try #require(try await LedgerRepository(database).account(id: account)?.balances["coins"])

        // When the store refunds it to 80 %, told twice
        try await database.acceptNewNotifications(["n-step-2", "n-step-2-again"])
        var transaction = Fixture.purchase(transactionID, product: product, cancelled: Fixture.t0)
        transaction.revocationPercentage = 80_000
        let results = try await SettlementRepository(database).apply(
            [
                Fixture.notified("n-step-2", "REFUND", uuid: "U-step-2", transaction),
                Fixture.notified("n-step-2-again", "REFUND", uuid: "U-step-2-again", transaction),
            ], catalog: Fixture.catalog, now: Fixture.t0)

        // Then 50 more are taken, once, as step 2, and the books still balance
        #expect(
            results == [
                .notificationApplied(notificationID: "n-step-2", status: .applied, reason: nil),
                .notificationApplied(notificationID: "n-step-2-again", status: .applied, reason: "already_refunded"),
            ])
        let steps = try await database.snapshot { db in
            try await db.rows(
                "SELECT amount, step FROM ledger_entries WHERE transaction_id = ? AND kind = 'refund' ORDER BY id",
                [transactionID]
            ).map { [try $0.get("amount", as: Int.self), try $0.get("step", as: Int.self)] }
        }
        #expect(steps == [[-30, 1], [-50, 2]])
        #expect(try await LedgerRepository(database).account(id: account)?.balances["coins"] == before - 50)
        #expect(try await LedgerRepository(database).audit() == [])
    }
}
