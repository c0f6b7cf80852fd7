import Database
import DatabasePostgres
import DatabaseSQLite
import DatabaseSchema
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// The `iap` binary as an operator runs it: bad settings stop it at start, naming the variable.
@Suite struct CommandLineTests {
    @Test(arguments: [
        ("IAP_AMQP_URL", "http://127.0.0.1:5672/"),
        ("IAP_AMQP_URL", "amqp://host:99999/"),
        ("IAP_QUEUE_PREFIX", "bad prefix!"),
        ("IAP_LOG_LEVEL", "loud"),
        ("IAP_AMQP_DEAD_PEER_SECONDS", "1"),
        ("IAP_DATABASE_DEAD_PEER_SECONDS", "ten"),
        ("IAP_DATABASE_TIMEOUT_SECONDS", "0"),
        ("IAP_DATABASE_LONG_TIMEOUT_SECONDS", "100000"),
    ])
    func malformedSettingStopsTheProcessNamingTheVariable(variable: String, value: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(
            ["migrate"], environment: [variable: value, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains(variable))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test func longWorksBoundShorterThanTheStagesIsRefusedNamingBoth() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(
            ["migrate"],
            environment: [
                "IAP_DATABASE_TIMEOUT_SECONDS": "60", "IAP_DATABASE_LONG_TIMEOUT_SECONDS": "30",
                "IAP_DB_PATH": directory.file("x.sqlite"),
            ])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_DATABASE_LONG_TIMEOUT_SECONDS"), "\(result.output)")
        #expect(result.output.contains("must be at least IAP_DATABASE_TIMEOUT_SECONDS (60), got 30"))
    }

    @Test func aMalformedEntryOfABrokerListStopsTheProcessNamingItWithoutItsPassword() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = "amqp://app:hunter2@10.0.0.11:5672/,amqp://app:hunter2@10.0.0.12:99999/,amqp://10.0.0.13"
        let result = try await IAPProcess.run(
            ["migrate"], environment: ["IAP_AMQP_URL": list, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(
            result.output.contains("IAP_AMQP_URL") && result.output.contains("entry 2 of 3")
                && result.output.contains("amqp://app:***@10.0.0.12:99999/"), "\(result.output)")
        #expect(!result.output.contains("hunter2"))
    }

    @Test func intakeWithoutTokensRefusesToStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(
            ["intake"], environment: ["IAP_API_TOKENS": "", "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_API_TOKENS"))
    }

    @Test func aValidatorWithABadGoogleKeyStopsNamingTheSettingNeverTheKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broken = directory.file("service-account.json")
        let secret = "-----BEGIN PRIVATE KEY-----\nMIIsecretsecretsecret\n-----END PRIVATE KEY-----\n"
        try Data(
            JSONSerialization.data(withJSONObject: [
                "type": "service_account", "client_email": "a@b.iam.gserviceaccount.com", "private_key": secret,
            ])
        ).write(to: URL(fileURLWithPath: broken))
        for (path, problem) in [
            (directory.file("absent.json"), "cannot read the key file"),
            (broken, "not an RSA private key in PEM"),
        ] {
            let result = try await IAPProcess.run(["validator"], environment: ["IAP_GOOGLE_SERVICE_ACCOUNT": path])
            #expect(result.status != 0)
            #expect(
                result.output.contains("IAP_GOOGLE_SERVICE_ACCOUNT") && result.output.contains(problem),
                "\(result.output)")
            #expect(!result.output.contains("secretsecret"))
        }
    }

    @Test func malformedCatalogIsRejectedWithItsProblem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = directory.file("catalog.json")
        try Data(
            #"{"products": [{"product_id": "x", "type": "consumable", "grant": {"currency": "coins", "amount": -5}}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: catalog))
        let result = try await IAPProcess.run(
            ["fulfiller"], environment: ["IAP_CATALOG": catalog, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_CATALOG"))
        #expect(result.output.contains("amount"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test func aCatalogWithAMalformedSaleDate_stopsTheIntake_namingTheDate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = directory.file("catalog.json")
        try Data(
            #"{"products": [{"product_id": "x", "type": "consumable", "grant": {"currency": "coins", "amount": 5}, "rules": {"sale": {"from": "2026-13-01"}}}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: catalog))
        let result = try await IAPProcess.run(
            ["intake"],
            environment: [
                "IAP_CATALOG": catalog, "IAP_DB_PATH": directory.file("x.sqlite"),
                "IAP_API_TOKENS": "a-token-of-16-chars-or-more",
            ])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_CATALOG"))
        #expect(result.output.contains("rules.sale.from"))
        #expect(result.output.contains("2026-13-01"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test(arguments: [
        ("IAP_SCHEDULER_INTERVAL_SECONDS", "soon"), ("IAP_FULFILLER_COMMIT_WAIT_MS", "soon"),
        ("IAP_FULFILLER_COMMIT_WAIT_MS", "5000"),
    ])
    func aMalformedFulfillerSetting_stopsTheFulfiller_beforeItOpensAnything(variable: String, value: String)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(
            ["fulfiller"], environment: [variable: value, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains(variable))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test func aStubStoreGivenAReceiptRootThatIsNoCertificate_stopsNamingTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = directory.file("root.der")
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: text))
        for (path, problem) in [(text, "is not a DER X.509 certificate"), (directory.file("none.der"), "cannot read")] {
            let result = try await IAPProcess.run(
                ["stub-store", "--port", "0", "--receipt-root", path], environment: [:])
            #expect(result.status != 0)
            #expect(result.output.contains("--receipt-root: ") && result.output.contains(path), "\(result.output)")
            #expect(result.output.contains(problem), "\(result.output)")
        }
    }

    @Test func benchUpRefusesWhatOneProcessCannotRun() async throws {
        for extra in [["--validators", "2"], ["--replicas", "2", "--database-url", "postgres://x@127.0.0.1/x"]] {
            let result = try await IAPProcess.run(["bench", "stages", "--up"] + extra, environment: [:])
            #expect(result.status != 0)
            #expect(result.output.contains("--up runs one process"), "\(result.output)")
        }
    }

    @Test func benchAnswersDecodesEachWayAlike_andRefusesWhatItCannotRead() async throws {
        let result = try await IAPProcess.run(
            ["bench", "answers", "--count", "20", "--purchases", "3"], environment: [:])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("µs each") && result.output.contains("times the tape's"), "\(result.output)")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = directory.file("answer.json")
        try Data(#"{"environment": "Production"}"#.utf8).write(to: URL(fileURLWithPath: text))
        for (arguments, problem) in [
            (["--purchases", "0"], "--purchases 1...10000"), (["--file", directory.file("none.json")], "cannot read"),
            (["--file", text], "does not decode"),
        ] {
            let refused = try await IAPProcess.run(["bench", "answers"] + arguments, environment: [:])
            #expect(refused.status != 0)
            #expect(refused.output.contains(problem), "\(refused.output)")
        }
    }

    @Test func migrateCreatesTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(
            ["migrate"], environment: ["IAP_DB_PATH": directory.file("db/iap.sqlite")])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("db/iap.sqlite")))
    }

    /// The test server's role (scripts/postgres.sh) and a database of the test's own.
    private static let postgresServer = "postgres://iap_test:iap-test-only@127.0.0.1:5432"

    private static func postgresTool(_ tool: String, _ database: String) async throws {
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/\(tool)"), ["-h", "127.0.0.1", "-U", "iap_test", database],
            environment: ["PGPASSWORD": "iap-test-only"])
        #expect(outcome.status == 0, "\(tool) \(database): \(outcome.output)")
    }

    @Test func migrateWithADatabaseURLCreatesThePostgreSQLSchemaAndASecondRunFindsItReady() async throws {
        let name = "iap_cli_" + UUID().uuidString.prefix(8).lowercased()
        try await Self.postgresTool("createdb", name)
        let environment = ["IAP_DATABASE_URL": "\(Self.postgresServer)/\(name)?sslmode=disable"]
        let first = try await IAPProcess.run(["migrate"], environment: environment)
        let second = try await IAPProcess.run(["migrate"], environment: environment)
        try await Self.postgresTool("dropdb", name)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("database ready: postgres://iap_test:***@127.0.0.1:5432/\(name)"))
        #expect(first.output.contains("(schema \(Schema.latestVersion))"))
        #expect(!first.output.contains("iap-test-only"))
        #expect(
            second.status == 0 && second.output.contains("(schema \(Schema.latestVersion))"), "\(second.output)"
        )
    }

    @Test func migrateWithABadDatabaseURLStopsNamingTheProblemNeverThePassword() async throws {
        let malformed = try await IAPProcess.run(
            ["migrate"], environment: ["IAP_DATABASE_URL": "postgres://iap:s3cret@127.0.0.1:5432/"])
        #expect(malformed.status != 0)
        #expect(malformed.output.contains("IAP_DATABASE_URL") && malformed.output.contains("names no database"))
        let wrongPassword = try await IAPProcess.run(
            ["migrate"],
            environment: ["IAP_DATABASE_URL": "postgres://iap_test:s3cret@127.0.0.1:5432/postgres?sslmode=disable"])
        #expect(wrongPassword.status != 0)
        #expect(wrongPassword.output.contains("password authentication failed"), "\(wrongPassword.output)")
        for result in [malformed, wrongPassword] { #expect(!result.output.contains("s3cret")) }
    }
}

/// `iap audit` on a real database file, clean and deliberately corrupted.
@Suite struct AuditCommandTests {
    @Test func findsADeliberatelyCorruptedBalanceAndExitsNonZero() async throws {
        // Given a database with one credited receipt
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        let database = try SQLiteDatabase(path: path)
        let receipt = NewReceipt.fixture(accountID: "player")
        _ = try await IntakeRepository(database).accept([receipt], now: Date())
        _ = try await SettlementRepository(database).apply(
            [
                Verdict(
                    outcome: .valid, receiptID: receipt.id, accountID: "player", attempts: 1,
                    transactions: [
                        VerifiedTransaction(transactionID: "t1", originalTransactionID: "t1", productID: "coins")
                    ],
                    decidedAt: Date())
            ],
            catalog: Catalog(products: [
                Product(productID: "coins", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
            ]),
            now: Date())

        // Then a clean audit exits 0
        let clean = try await IAPProcess.run(["audit"], environment: ["IAP_DB_PATH": path])
        #expect(clean.status == 0)
        #expect(clean.output.contains("the books balance"))

        // When someone edits a balance behind the ledger's back
        let edit = try await ChildProcess.run(
            command: "python3",
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE balances SET amount = amount + 1\"); c.commit()",
                path,
            ])
        #expect(edit.status == 0, "\(edit.output)")

        // Then the audit reports it and exits 1
        let corrupted = try await IAPProcess.run(["audit"], environment: ["IAP_DB_PATH": path])
        #expect(corrupted.status == 1)
        #expect(corrupted.output.contains("balance_mismatch"))
        let json = try await IAPProcess.run(["audit", "--json"], environment: ["IAP_DB_PATH": path])
        #expect(json.status == 1)
        #expect(json.output.contains("\"kind\" : \"balance_mismatch\""))
    }

    @Test func auditOfAMissingDatabaseCreatesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await IAPProcess.run(["audit"], environment: ["IAP_DB_PATH": directory.file("none.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_DB_PATH"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.sqlite")))
    }
}
