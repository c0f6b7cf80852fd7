import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap-lab chaos` as CI runs it: 500 receipts, seed 1, every stage its own process, killed at
/// random at least 20 times, RabbitMQ's app stopped and started, the verify endpoint away
/// for 20 s and a fifth of the webhooks refused; then every promise checked. It stops the
/// broker's app, so it runs only in the pass of tests that have the machine (and the broker)
/// to themselves (`IAP_TEST_ALONE=1`). `IAP_TEST_AMQP_URL` with `IAP_TEST_RABBITMQ_NODE` point it
/// at a private broker node instead.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneChaosTests {
    @Test func fiveHundredReceiptsUnderEveryFaultAtOnceKeepEveryPromise() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = ProcessInfo.processInfo.environment
        var arguments = ["chaos", "--receipts", "500", "--seed", "1", "--keep", directory.file("run")]
        if let node = environment["IAP_TEST_RABBITMQ_NODE"] { arguments += ["--rabbitmq-node", node] }
        let outcome = try await ChildProcess.run(
            IAPProcess.lab, arguments,
            environment: ["IAP_AMQP_URL": BrokerFixture(label: "chaos").url, "IAP_LOG_LEVEL": "error"])
        let report = outcome.output
        try #require(outcome.status == 0, "iap-lab chaos failed:\n\(report)")

        #expect(report.contains("result: no violations"), "\(report)")
        let kills = report.firstMatch(of: /kills\s+(\d+) SIGKILLs/).flatMap { Int($0.1) } ?? 0
        #expect(kills >= 20, "\(report)")
        for stage in ["intake", "validator-1", "validator-2", "fulfiller", "notifier"] {
            #expect(report.contains("SIGKILL \(stage), restarted"), "never killed \(stage):\n\(report)")
        }
        #expect(report.contains("RabbitMQ app stopped and started: yes"), "\(report)")
        #expect(report.contains("rabbitmqctl start_app done"), "\(report)")
        #expect(report.contains("endpoint away for 20.0 s"), "\(report)")
        #expect(report.contains("500 accepted (2xx)"), "\(report)")
        let refused = report.firstMatch(of: /(\d+) answered 503/).flatMap { Int($0.1) } ?? 0
        #expect(refused > 0, "the receiver refused no webhook:\n\(report)")
    }
}
