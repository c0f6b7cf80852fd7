import Drills
import Foundation
import HTTPClient
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// Amazon SNS's certificates are trusted by their hosts, fixed in the product: `iap intake`
/// refuses a notification the lab's stub signed even when told the lab's setting, and only
/// `iap-lab iap intake` (the lab's executable running the product's command) takes it.
@Suite struct SNSTrustTests {
    @Test func onlyTheLabsExecutableTrustsTheStubSNSsCertificate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stubPort = ProcessPipeline.freePort()
        let envFile = directory.file("stub.env")
        let stub = try SpawnedProcess.start(
            IAPProcess.lab.path, ["stub-store", "--port", "\(stubPort)", "--env-file", envFile],
            environment: ProcessInfo.processInfo.environment, output: .file(directory.file("stub.log")))
        defer {
            stub.signal(SIGKILL)
            stub.waitUntilExit()
        }
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: envFile) })
        let stubURL = "http://127.0.0.1:\(stubPort)"
        let client = try CurlHTTPClient(configuration: .init())
        defer { Task { await client.shutdown() } }

        // A notification the stub signs as SNS does, about a receipt of its own
        let bought = try await client.execute(
            HTTPRequest(
                method: .post, url: stubURL + "/stub/amazon/receipts",
                body: Array(#"{"user_id": "trust-user", "product_id": "com.example.coins100"}"#.utf8)))
        let receipt = try #require(
            (try JSONSerialization.jsonObject(with: Data(bought.body)) as? [String: Any])?["receiptId"] as? String)
        let message = try await client.execute(
            HTTPRequest(
                method: .post, url: stubURL + "/stub/amazon/notifications",
                body: Array(
                    try JSONSerialization.data(withJSONObject: ["type": "CONSUMABLE_PURCHASED", "receipt_id": receipt]))
            ))
        #expect(message.status == 200)

        var settings = try ProductAndLabTests.read(envFile)
        settings[IAPProcess.snsCertificatesVariable] = stubURL + "/amazon/sns/"
        settings["IAP_QUEUE_PREFIX"] = "test.trust.\(UUID().uuidString.prefix(8))"
        for (name, executable, arguments) in [
            ("iap", IAPProcess.executable, ["intake"]), ("iap-lab", IAPProcess.lab, ["iap", "intake"]),
        ] {
            let port = ProcessPipeline.freePort()
            let log = directory.file("\(name).log")
            let intake = try SpawnedProcess.start(
                executable.path, arguments,
                environment: ProcessInfo.processInfo.environment.merging(settings) { $1 }.merging([
                    "IAP_HTTP_PORT": "\(port)", "IAP_DB_PATH": directory.file("\(name).sqlite"),
                ]) { $1 }, output: .file(log))
            defer {
                intake.signal(SIGKILL)
                intake.waitUntilExit()
            }
            let url = "http://127.0.0.1:\(port)"
            #expect(
                await eventually(timeout: .seconds(60)) {
                    (try? await client.execute(HTTPRequest(url: url + "/readyz", timeout: .seconds(2))))?.status == 200
                }, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            let answer = try await client.execute(
                HTTPRequest(
                    method: .post, url: url + "/v1/amazon/notifications",
                    headers: [(name: "Content-Type", value: "text/plain; charset=UTF-8")], body: message.body))
            let text = String(decoding: answer.body, as: UTF8.self)
            if name == "iap" {
                #expect(answer.status == 401 && text.contains("not Amazon SNS's"), "\(text)")
            } else {
                // Signed by a certificate the lab trusts, about a receipt no app recorded: dropped.
                #expect(answer.status == 200 && text.contains("unknown_purchase"), "\(text)")
            }
        }
    }
}
