import Drills
import Foundation
import HTTPClient
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap` is the product, `iap-lab` the lab beside it (issue 54): the product lists no bench,
/// chaos or stub command and runs only against stores it is configured for; the lab's stub
/// stores write the settings that point `iap up` at them, which is how the demo runs.
@Suite struct ProductAndLabTests {
    @Test func iapListsTheStagesAndTheOperatorsCommandsAndNothingOfTheLab() async throws {
        let help = try await IAPProcess.run(["--help"], environment: [:])
        #expect(help.status == 0, "\(help.output)")
        for command in ["up", "intake", "validator", "fulfiller", "notifier", "migrate", "audit", "dlq", "account"] {
            #expect(help.output.contains(command), "\(command): \(help.output)")
        }
        for lab in ["bench", "chaos", "stub-store", "drill"] {
            #expect(!help.output.contains(lab), "\(lab) is in iap --help: \(help.output)")
        }
        let labHelp = try await ChildProcess.run(IAPProcess.lab, ["--help"], environment: [:])
        for command in ["stub-store", "bench", "chaos"] {
            #expect(labHelp.output.contains(command), "\(command): \(labHelp.output)")
        }
        // The lab's commands are not the product's
        let bench = try await ChildProcess.run(IAPProcess.executable, ["bench"], environment: [:])
        #expect(bench.status != 0 && bench.output.contains("Unexpected argument 'bench'"), "\(bench.output)")
    }

    @Test func iapUpWithoutAnyStoreRefusesToStartAndSaysHowToStartTheDemo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Only what is not a store's: a database, tokens, a port
        let outcome = try await ChildProcess.run(
            IAPProcess.executable, ["up"],
            environment: [
                "IAP_DB_PATH": directory.file("iap.sqlite"), "IAP_API_TOKENS": "up-token-0123456789abcdef",
                "IAP_HTTP_PORT": "\(ProcessPipeline.freePort())",
            ])
        #expect(outcome.status != 0)
        #expect(outcome.output.contains("no store is configured"), "\(outcome.output)")
        #expect(outcome.output.contains("scripts/up.sh") && outcome.output.contains("IAP_VERIFY_URL"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("iap.sqlite")))
    }

    @Test func theLabsStubStoreWritesTheSettingsThatRunIapUpAgainstIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (stubPort, intakePort) = (ProcessPipeline.freePort(), ProcessPipeline.freePort())
        let envFile = directory.file("stub.env")
        let stub = try SpawnedProcess.start(
            IAPProcess.lab.path,
            [
                "stub-store", "--port", "\(stubPort)", "--env-file", envFile, "--intake-url",
                "http://127.0.0.1:\(intakePort)",
            ],
            environment: ProcessInfo.processInfo.environment, output: .file(directory.file("stub.log")))
        defer {
            stub.signal(SIGKILL)
            stub.waitUntilExit()
        }
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: envFile) })
        let settings = try Self.read(envFile)
        #expect(settings["IAP_VERIFY_URL"] == "http://127.0.0.1:\(stubPort)/verifyReceipt")
        for file in ["IAP_APPLE_ROOT_CA", "IAP_RECEIPT_ROOT_CA", "IAP_GOOGLE_SERVICE_ACCOUNT"] {
            #expect(FileManager.default.fileExists(atPath: settings[file] ?? ""), "\(file)")
        }
        #expect(settings["IAP_HUAWEI_CLIENT_ID"] != nil && settings["IAP_STRIPE_API_KEY"] != nil)

        // When `iap up` runs on them, a receipt the stub minted is credited
        let prefix = "test.lab.\(UUID().uuidString.prefix(8))"
        let up = try IAPProcess.start(
            ["up"],
            environment: settings.merging([
                "IAP_HTTP_PORT": "\(intakePort)", "IAP_DB_PATH": directory.file("iap.sqlite"),
                "IAP_QUEUE_PREFIX": prefix,
            ]) { $1 }, output: URL(fileURLWithPath: directory.file("up.log")))
        defer { up.crash() }
        let client = try CurlHTTPClient(configuration: .init())
        defer { Task { await client.shutdown() } }
        let api = "http://127.0.0.1:\(intakePort)"
        #expect(
            await eventually(timeout: .seconds(60)) {
                (try? await client.execute(HTTPRequest(url: api + "/readyz", timeout: .seconds(2))))?.status == 200
            })
        let minted = try await client.execute(
            HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(stubPort)/stub/receipts",
                body: Array(#"{"transactions": [{"product_id": "com.example.coins100"}]}"#.utf8)))
        let receipt = try #require(
            (try JSONSerialization.jsonObject(with: Data(minted.body)) as? [String: Any])?["receipt_data"] as? String)
        let token = try #require(settings["IAP_API_TOKENS"])
        let headers = [
            (name: "Authorization", value: "Bearer \(token)"), (name: "Content-Type", value: "application/json"),
        ]
        let posted = try await client.execute(
            HTTPRequest(
                method: .post, url: api + "/v1/receipts", headers: headers,
                body: Array(
                    try JSONSerialization.data(withJSONObject: ["account_id": "lab-1", "receipt_data": receipt]))))
        #expect(posted.status == 202, "\(String(decoding: posted.body, as: UTF8.self))")
        let credited = await eventually(timeout: .seconds(60)) {
            let account = try? await client.execute(HTTPRequest(url: api + "/v1/accounts/lab-1", headers: headers))
            return account.map { String(decoding: $0.body, as: UTF8.self).contains(#""coins":100"#) } ?? false
        }
        #expect(credited, "\((try? String(contentsOfFile: directory.file("up.log"), encoding: .utf8)) ?? "")")
        let queues = try await Rabbitmqctl.output(["-q", "list_queues", "name"])
        for queue in queues.split(separator: "\n") where queue.hasPrefix(prefix) {
            _ = try? await Rabbitmqctl.output(["-q", "delete_queue", String(queue)])
        }
    }

    /// The `NAME='value'` lines of a settings file.
    static func read(_ path: String) throws -> [String: String] {
        var settings: [String: String] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = line[line.index(after: equals)...].dropFirst().dropLast()
            settings[String(line[..<equals])] = value.replacingOccurrences(of: #"'\''"#, with: "'")
        }
        return settings
    }
}
