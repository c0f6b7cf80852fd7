import Foundation
import PipelineTesting
import Testing

/// The `iap` binary as an operator runs it: bad settings stop it at start, naming the variable.
@Suite struct CommandLineTests {
    @Test(arguments: [
        ("IAP_AMQP_URL", "http://127.0.0.1:5672/"),
        ("IAP_AMQP_URL", "amqp://host:99999/"),
        ("IAP_QUEUE_PREFIX", "bad prefix!"),
        ("IAP_LOG_LEVEL", "loud"),
    ])
    func malformedSettingStopsTheProcessNamingTheVariable(variable: String, value: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try IAPProcess.run(["migrate"], environment: [variable: value, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains(variable))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test func intakeWithoutTokensRefusesToStart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try IAPProcess.run(["intake"], environment: ["IAP_API_TOKENS": "", "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_API_TOKENS"))
    }

    @Test func malformedCatalogIsRejectedWithItsProblem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = directory.file("catalog.json")
        try Data(#"{"products": [{"product_id": "x", "type": "consumable", "grant": {"currency": "coins", "amount": -5}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: catalog))
        let result = try IAPProcess.run(
            ["fulfiller"], environment: ["IAP_CATALOG": catalog, "IAP_DB_PATH": directory.file("x.sqlite")])
        #expect(result.status != 0)
        #expect(result.output.contains("IAP_CATALOG"))
        #expect(result.output.contains("amount"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")), "nothing is created")
    }

    @Test func migrateCreatesTheDatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try IAPProcess.run(["migrate"], environment: ["IAP_DB_PATH": directory.file("db/iap.sqlite")])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("db/iap.sqlite")))
    }
}
