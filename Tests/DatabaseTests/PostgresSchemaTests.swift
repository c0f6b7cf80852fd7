import Database
import DatabaseSchema
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabasePostgres
@testable import Repositories

extension PostgresPipelineDatabase {
    /// Runs one statement in a transaction of its own (tests only).
    func execute(_ sql: String) async throws {
        _ = try await transaction { try await $0.execute(sql) }
    }
}

@Suite struct PostgresSchemaTests {
    @Test func migratingAnEmptyDatabaseCreatesEveryTableAndASecondRunChangesNothing() async throws {
        try await PostgresFixture.withDatabase { database in
            #expect(try await database.schemaVersion() == 0)
            try await database.migrate()
            #expect(try await database.schemaVersion() == Schema.latestVersion)
            try await database.migrate()
            #expect(try await database.schemaVersion() == Schema.latestVersion)
            // Every version is recorded once, those with no PostgreSQL statements (1-3) too.
            let versions = try await database.snapshot { session in
                try await session.rows("SELECT version FROM schema_migrations ORDER BY version")
                    .map { try $0.get("version", as: Int.self) }
            }
            #expect(versions == Schema.migrations.map(\.version))
            let tables = try await database.snapshot { session in
                await Set(
                    try session.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
                        .map { try $0.get("table_name", as: String.self) })
            }
            #expect(
                tables == [
                    "accounts", "receipts", "balances", "entitlements", "store_notifications", "app_account_tokens",
                    "orders", "store_transactions", "ledger_entries", "receipt_transactions", "notification_outbox",
                    "binding_conflicts", "subscription_checks", "dead_letters", "account_flags", "reconciliation_runs",
                    "consumption_consents", "consumption_answers", "call_budgets", "call_budget_seconds",
                    "manual_adjustments", "google_voided_polls", "store_confirmations",
                    "google_refund_reviews", "relays", "revenue_entries", "revenue_days",
                    "schema_migrations",
                ])
        }
    }

    @Test func theDatabaseRefusesASecondCreditOrDebitOfOneTransaction() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            try await database.execute("INSERT INTO accounts VALUES ('alice', now())")
            let credit = """
                INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at)
                VALUES ('alice', 'coins', 100, 'purchase', 't-1', now())
                """
            try await database.execute(credit)
            await #expect(throws: SQLError.self) { try await database.execute(credit) }
            try await database.execute(
                """
                INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at, step)
                VALUES ('alice', 'coins', -30, 'refund', 't-1', now(), 1)
                """)
            // A revoke at the refund's step would be the same take-back twice; at the next step it is the next one.
            let revoke = [1, 2].map { step in
                """
                INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at, step)
                VALUES ('alice', 'coins', -70, 'revoke', 't-1', now(), \(step))
                """
            }
            await #expect(throws: SQLError.self) { try await database.execute(revoke[0]) }
            try await database.execute(revoke[1])
            // Debits in steps that add up to the credit are sound; one more step beyond it is found.
            let overDebited = { (findings: [AuditFinding]) in findings.contains { $0.kind == .transactionRefundedTwice }
            }
            #expect(try await !overDebited(LedgerRepository(database).audit()))
            try await database.execute(
                """
                INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at, step)
                VALUES ('alice', 'coins', -1, 'refund', 't-1', now(), 3)
                """)
            #expect(try await overDebited(LedgerRepository(database).audit()))
            // A step is for debits and write-offs only.
            await #expect(throws: SQLError.self) {
                try await database.execute(
                    """
                    INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at, step)
                    VALUES ('alice', 'coins', 5, 'adjustment', 'adjustment:x', now(), 1)
                    """)
            }
            // Money is an exact 64-bit integer: the largest balance is kept to the unit.
            try await database.execute("INSERT INTO balances VALUES ('alice', 'coins', 9223372036854775807)")
            let amount = try await database.snapshot { session in
                try await session.value("SELECT amount FROM balances WHERE account_id = 'alice'", as: Int64.self)
            }
            #expect(amount == Int64.max)
        }
    }

    @Test func aReceiptAndAnAppleNotificationCannotShareAnId() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            try await database.execute("INSERT INTO accounts VALUES ('alice', now())")
            let hash = String(repeating: "a", count: 64)
            try await database.execute(
                """
                INSERT INTO store_notifications (id, payload, payload_hash, status, created_at, updated_at)
                VALUES ('shared', 'p', '\(hash)', 'received', now(), now())
                """)
            await #expect(throws: SQLError.self) {
                try await database.execute(
                    """
                    INSERT INTO receipts (id, account_id, kind, payload, payload_hash, status, request_hash, created_at, updated_at)
                    VALUES ('shared', 'alice', 'legacy', 'p', '\(hash)', 'received', '\(hash)', now(), now())
                    """)
            }
        }
    }

    @Test func aDatabaseMigratedByANewerVersionIsRefusedAndLeftAsItIs() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            try await database.execute("INSERT INTO schema_migrations (version) VALUES (99)")
            await #expect {
                try await database.migrate()
            } throws: { error in
                "\(error)".contains("newer version") && "\(error)".contains("schema 99")
            }
            #expect(try await database.schemaVersion() == 99)
        }
    }

    @Test func anUnreachableServerIsNamedWithoutItsPassword() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let location = try PostgresLocation(url: "postgres://iap:s3cret-pass@127.0.0.1:1/iap?sslmode=disable")
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        await #expect {
            try await database.migrate()
        } throws: { error in
            let text = "\(error)"
            return text.contains("127.0.0.1:1/iap") && !text.contains("s3cret-pass")
        }
        await database.close()
    }

    @Test func aWrongPasswordIsRefusedAtOnceWithTheServersReasonAndWithoutThePassword() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let server = PostgresFixture.server
        let location = try PostgresLocation(
            url: "postgres://\(server.user):not-the-password@\(server.host):\(server.port)/postgres?sslmode=disable")
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        await #expect {
            try await database.checkReachable()
        } throws: { error in
            let text = "\(error)"
            return text.contains("password authentication failed") && !text.contains("not-the-password")
        }
        await database.close()
    }

    @Test(arguments: [
        ("mysql://u:p@h/db", "must start with postgres://"),
        ("postgres://u:p@/db", "names no host"),
        ("postgres://h:5432/db", "names no user"),
        ("postgres://u:p@h:5432/", "names no database"),
        ("postgres://u:p@h/db?sslmode=sometimes", "sslmode must be one of"),
        ("not a url at all", "is not a URL"),
    ])
    func aMalformedDatabaseURLIsRefusedNamingTheVariableNotThePassword(url: String, problem: String) {
        #expect {
            _ = try PostgresLocation(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains("IAP_DATABASE_URL") && text.contains(problem) && !text.contains(":p@")
        }
    }

    @Test func theLocationShowsEverythingButThePassword() throws {
        let location = try PostgresLocation(url: "postgresql://app:hunter2@db.internal:6543/money?sslmode=require")
        #expect(location.description == "postgres://app:***@db.internal:6543/money?sslmode=require")
        #expect(location.port == 6543 && location.database == "money" && location.sslMode == .require)
    }
}
