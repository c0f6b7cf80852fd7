import DatabaseSQLite
import Foundation
import HTTPClient
import Notifier
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// Every secret setting, at once, in real `iap` processes: none reaches their logs, an error
/// body or `/metrics`.
@Suite struct SecretsStayOutTests {
    @Test func noSecretSettingReachesTheLogsAnErrorOrMetrics() async throws {
        try await ProcessPipeline.run(stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID)) { pipeline in
            // Given an intake and a fulfiller with every secret setting there is
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let tokensFile = directory.file("tokens")
            let fileToken = "file-token-0123456789-kept-secret"
            try "# rotated\n\(fileToken)\n".write(toFile: tokensFile, atomically: true, encoding: .utf8)
            let keyFile = directory.file("AuthKey_STUB.p8")
            try StubServerAPIConfiguration.developmentPrivateKeyPEM.write(
                toFile: keyFile, atomically: true, encoding: .utf8)
            let metricsToken = "metrics-token-0123456789-kept-secret"
            let consoleSecret = "console-secret-0123456789-kept"
            let (old, new) = (WebhookSecret.generate().encoded, WebhookSecret.generate().encoded)
            let secrets = [
                "IAP_API_TOKENS_FILE": tokensFile, "IAP_METRICS_TOKEN": metricsToken,
                "IAP_CONSOLE_OPERATORS": "ops:\(consoleSecret)", "IAP_WEBHOOK_URL": "http://127.0.0.1:1/hooks",
                "IAP_WEBHOOK_SECRET": "\(old) \(new)", "IAP_APPSTORE_PRIVATE_KEY": keyFile,
                "IAP_APPSTORE_KEY_ID": StubServerAPIConfiguration.developmentKeyID,
                "IAP_APPSTORE_ISSUER_ID": StubServerAPIConfiguration.developmentIssuerID, "IAP_LOG_LEVEL": "debug",
            ]
            let intake = "http://127.0.0.1:\(pipeline.intakePort)"
            _ = try pipeline.start(["intake"], environment: secrets)
            _ = try pipeline.start(["notifier"], environment: secrets)
            #expect(await pipeline.waitUntilServing("\(intake)/healthz"))

            // When clients get it wrong and right: a wrong token, a console login with a wrong
            // secret, /metrics without and with its token, a receipt with the file's token
            var answers: [String] = []
            for (path, token) in [
                ("/v1/accounts/p1", "wrong-token-0123456789"), ("/v1/accounts/p1", fileToken), ("/metrics", nil),
                ("/metrics", metricsToken),
            ] {
                let response = try await pipeline.client.execute(
                    HTTPClient.HTTPRequest(
                        url: intake + path,
                        headers: token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? [],
                        timeout: .seconds(5)))
                answers.append("\(response.status) " + String(decoding: response.body, as: UTF8.self))
            }
            #expect(answers[0].hasPrefix("401"))
            #expect(answers[1].hasPrefix("404"), "the file's token works: \(answers[1].prefix(80))")
            #expect(answers[2].hasPrefix("401"))
            #expect(answers[3].hasPrefix("200") && answers[3].contains("iap_"))
            let login = try await pipeline.client.execute(
                HTTPClient.HTTPRequest(
                    method: .post, url: intake + "/console/login",
                    headers: [
                        (name: "Content-Type", value: "application/x-www-form-urlencoded"),
                        (name: "Origin", value: intake),
                    ],
                    body: Array("name=ops&secret=not-the-secret-0123456789".utf8), timeout: .seconds(5)))
            answers.append("\(login.status) " + String(decoding: login.body, as: UTF8.self))
            #expect(login.status == 401)

            // Then no secret is in any log line (at debug), any answer, or /metrics
            try await Task.sleep(for: .milliseconds(500))
            let logs = pipeline.logs()
            // (the logs are the intake's and the notifier's, the failed login among them)
            #expect(logs.contains("failed login") && logs.contains("notifier"))
            let pem = StubServerAPIConfiguration.developmentPrivateKeyPEM.split(separator: "\n").filter {
                !$0.hasPrefix("-----")
            }
            for secret in [fileToken, metricsToken, consoleSecret, old, new, ProcessPipeline.token]
                + pem.map(String.init)
            {
                #expect(!logs.contains(secret), "a log holds \(secret.prefix(12))…")
                #expect(!answers.contains { $0.contains(secret) }, "an answer holds \(secret.prefix(12))…")
            }
        }
    }

    @Test func iapUpNamesWhereItsTokenComesFrom_neverTheToken() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let token = "up-token-0123456789-never-printed"
        let output = URL(fileURLWithPath: directory.file("up.log"))
        let prefix = "test.up.\(UUID().uuidString.prefix(8))"
        let up = try IAPProcess.start(
            ["up"],
            environment: [
                "IAP_API_TOKENS": token, "IAP_VERIFY_URL": "http://127.0.0.1:9/verifyReceipt",
                "IAP_HTTP_PORT": "\(ProcessPipeline.freePort())",
                "IAP_DB_PATH": directory.file("iap.sqlite"), "IAP_QUEUE_PREFIX": prefix,
            ], output: output)
        let bannered = await eventually(timeout: .seconds(60), every: .milliseconds(100)) {
            (try? String(contentsOf: output, encoding: .utf8))?.contains("dead letters: iap dlq list") == true
        }
        _ = await up.terminate()
        // The queues `iap up` declared under its prefix go with it.
        let queues = try await Rabbitmqctl.output(["-q", "list_queues", "name"])
        for queue in queues.split(separator: "\n") where queue.hasPrefix(prefix) {
            _ = try? await Rabbitmqctl.output(["-q", "delete_queue", String(queue)])
        }
        let printed = try String(contentsOf: output, encoding: .utf8)
        #expect(bannered, "\(printed.suffix(400))")
        #expect(printed.contains("token: from IAP_API_TOKENS / IAP_API_TOKENS_FILE"))
        #expect(!printed.contains(token))
    }
}
