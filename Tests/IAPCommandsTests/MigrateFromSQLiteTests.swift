import Database
import DatabasePostgres
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// `iap migrate --from-sqlite`: a SQLite history copied into an empty PostgreSQL database,
/// both audited, and the copy refused where PostgreSQL already holds rows.
@Suite struct MigrateFromSQLiteTests {
    static let catalog = Catalog(products: [
        Product(productID: "coins", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// A SQLite file with 40 credited receipts, one refunded purchase, one dead receipt, and
    /// what Google is still owed for one of them (a store confirmation, as v13 keeps it).
    func history(at path: String) async throws {
        let database = try SQLiteDatabase(path: path)
        let receipts = (0..<42).map { NewReceipt.fixture(accountID: "player-\($0 % 5)") }
        _ = try await IntakeRepository(database).accept(receipts, now: Date())
        var verdicts = receipts.prefix(40).enumerated().map { index, receipt in
            Verdict(
                outcome: .valid, receiptID: receipt.id, accountID: receipt.accountID, attempts: 1,
                transactions: [
                    VerifiedTransaction(
                        transactionID: "t\(index)", originalTransactionID: "t\(index)", productID: "coins")
                ], decidedAt: Date())
        }
        verdicts.append(
            Verdict(
                outcome: .dead, receiptID: receipts[40].id, accountID: "player-0", reason: "poison", attempts: 3,
                decidedAt: Date()))
        _ = try await SettlementRepository(database).apply(verdicts, catalog: Self.catalog, now: Date())
        _ = try await AdjustmentRepository(database).apply(
            .init(
                accountID: "player-1", change: .currency("coins", amount: -30), reason: "goodwill reversal",
                operatorName: "tests", idempotencyKey: UUID().uuidString),
            catalog: Self.catalog, now: Date())
        let first = receipts[0].id
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO store_confirmations (
                    store, transaction_id, payload, receipt_id, status, attempts, next_attempt_at, last_error,
                    created_at)
                VALUES ('google', 't0', ?, ?, 'pending', 2, ?, 'HTTP 503', ?)
                """,
                [PlayAcknowledgementsAtV12.payload("consume", "coins", "tok-0"), first, Date(), Date()])
            // And one owed for another app's credit, paid by that app's stores.
            try await db.execute(
                """
                INSERT INTO store_confirmations (
                    store, transaction_id, app, payload, status, attempts, next_attempt_at, created_at)
                VALUES ('google', 't1', 'racer', ?, 'pending', 0, ?, ?)
                """, [PlayAcknowledgementsAtV12.payload("consume", "coins", "tok-1"), Date(), Date()])
        }
    }

    @Test func aSQLiteHistoryIsCopiedWholeAndAuditedOnBothSides() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        try await history(at: path)
        try await PostgresFixture.withDatabase { target in
            let environment = ["IAP_DATABASE_URL": PostgresFixture.url(of: target.location.database)]
            // When the file is copied
            let copy = try await IAPProcess.run(["migrate", "--from-sqlite", path], environment: environment)
            #expect(copy.status == 0, "\(copy.output)")
            #expect(copy.output.contains("receipts               42 / 42"), "\(copy.output)")
            #expect(copy.output.contains("ledger_entries         41 / 41"), "\(copy.output)")
            #expect(copy.output.contains("store_confirmations    2 / 2"), "\(copy.output)")
            #expect(copy.output.contains("audit: sqlite 0 finding(s), postgres 0 finding(s)"))
            #expect(!copy.output.contains("DIFFERS"))
            // Then PostgreSQL holds the same books, and new ledger lines continue after the copied ones
            let account = try #require(try await LedgerRepository(target).account(id: "player-1"))
            #expect(account.balances == ["coins": 770])
            let owed = try await ConfirmationRepository(target).confirmation(store: "google", transactionID: "t0")
            #expect(owed?.status == .pending && owed?.attempts == 2 && owed?.lastError == "HTTP 503")
            #expect(owed?.app == nil)
            let racer = ConfirmationRepository(target)
            #expect(try await racer.confirmation(store: "google", transactionID: "t1")?.app == "racer")
            _ = try await AdjustmentRepository(target).apply(
                .init(
                    accountID: "player-1", change: .currency("coins", amount: 5), reason: "after the move",
                    operatorName: "tests", idempotencyKey: UUID().uuidString),
                catalog: Self.catalog, now: Date())
            #expect(try await LedgerRepository(target).audit() == [])

            // And a second copy into the now full database is refused, changing nothing
            let again = try await IAPProcess.run(["migrate", "--from-sqlite", path], environment: environment)
            #expect(again.status != 0)
            #expect(again.output.contains("is not empty"), "\(again.output)")
            #expect(try await SQLiteToPostgres.counts(in: target)["receipts"] == 42)
        }
    }

    @Test func aCopyInPagesSmallerThanEveryTableKeepsEveryRowItsOrderAndTheLedgersIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        try await history(at: path)
        let source = try SQLiteDatabase(path: path)
        try await PostgresFixture.withDatabase { target in
            try await target.migrate()
            // When the file is copied three rows at a time (a page boundary inside each table)
            let copied = try await SQLiteToPostgres(from: source, to: target).copy(pageSize: 3)

            // Then every table holds what SQLite holds, row for row, in the order written
            let before = try await SQLiteToPostgres.counts(in: source)
            #expect(copied == before)
            #expect(try await SQLiteToPostgres.counts(in: target) == before)
            // (receipt_transactions' order is SQLite's rowid there, an identity PostgreSQL
            // numbers as the rows arrive; the ledger's ids are kept)
            func rows(_ sql: String, in database: any SQLDatabase) async throws -> [[String: SQLValue]] {
                try await database.snapshot { db in
                    try await db.rows(sql.replacingOccurrences(of: "{order}", with: db.dialect.insertionOrder))
                        .map(\.columns)
                }
            }
            for sql in [
                "SELECT receipt_id, transaction_id FROM receipt_transactions ORDER BY {order}",
                "SELECT id, account_id, amount FROM ledger_entries ORDER BY id",
            ] {
                let (sqlite, postgres) = (try await rows(sql, in: source), try await rows(sql, in: target))
                #expect(sqlite.count > 3 && sqlite == postgres, "\(sql)")
            }
            #expect(try await LedgerRepository(target).audit() == [])
            #expect(try await LedgerRepository(target).account(id: "player-1")?.balances == ["coins": 770])
        }
    }

    @Test func withoutADatabaseURLTheCopyIsRefusedNamingIt() async throws {
        let refused = try await IAPProcess.run(["migrate", "--from-sqlite", "/nonexistent.sqlite"], environment: [:])
        #expect(refused.status != 0)
        #expect(refused.output.contains("IAP_DATABASE_URL"), "\(refused.output)")
    }
}
