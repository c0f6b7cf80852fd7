import Foundation
import PipelineTesting
import Testing

/// `iap chaos --cluster` as CI's alone pass runs it: every stage in a network namespace of its
/// own, the fulfiller cut off for 30 s, the notifier partitioned from the webhook receiver for
/// 30 s, beside every fault of plain `iap chaos` (so it stops the broker's app, like
/// ``AloneChaosTests``; `IAP_TEST_AMQP_URL` with `IAP_TEST_RABBITMQ_NODE` point it at a private
/// node). On the shared broker and SQLite, the cluster's node and failover faults are skipped,
/// and the report says so. Needs root.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneChaosClusterTests {
    @Test func threeHundredReceiptsThroughPartitionsKeepEveryPromise() async throws {
        let directory = try TemporaryDirectory()
        // Whatever became of the run, no namespace (nor the iptables rules inside one) outlives it.
        defer {
            NetworkNamespace.removeAll(prefix: "chaos-")
            directory.remove()
        }
        let environment = ProcessInfo.processInfo.environment
        var arguments = [
            "chaos", "--cluster", "--receipts", "300", "--seed", "3", "--load-seconds", "40", "--minimum-kills", "10",
            "--keep", directory.file("run"),
        ]
        if let node = environment["IAP_TEST_RABBITMQ_NODE"] { arguments += ["--rabbitmq-node", node] }
        let outcome = try await ChildProcess.run(
            IAPProcess.executable, arguments,
            environment: ["IAP_AMQP_URL": BrokerFixture(label: "chaos-cluster").url, "IAP_LOG_LEVEL": "error"])
        let report = outcome.output
        try #require(outcome.status == 0, "iap chaos --cluster failed:\n\(report)")

        #expect(report.contains("result: no violations"), "\(report)")
        #expect(report.contains("300 accepted (2xx)"), "\(report)")
        // Each partition was dealt and healed, at its planned length.
        let partitions = [
            /fulfiller cut off from the broker and the database \(vh-chaos-fulfil down\) from \+[\d.]+ s to \+[\d.]+ s \((\d+)\.\d s\)/,
            /notifier partitioned from the webhook receiver \(DROP to 10\.77\.0\.1:\d+\) from \+[\d.]+ s to \+[\d.]+ s \((\d+)\.\d s\)/,
        ]
        for partition in partitions {
            let seconds = report.firstMatch(of: partition).flatMap { Int($0.1) }
            #expect(seconds.map { $0 >= 30 } == true, "a partition missing or short:\n\(report)")
        }
        #expect(!report.contains("NEVER UNDONE"), "\(report)")
        #expect(report.contains("skipped     RabbitMQ node kill and app stop"), "\(report)")
        #expect(report.contains("RabbitMQ app stopped and started: yes"), "\(report)")
        for stage in ["intake", "validator-1", "validator-2", "fulfiller", "notifier"] {
            #expect(report.contains("SIGKILL \(stage), restarted"), "never killed \(stage):\n\(report)")
        }
        // The run took its namespaces down itself.
        let namespaces = try await ChildProcess.run(command: "ip", ["netns", "list"]).output
        #expect(!namespaces.contains("iap-chaos-"), "namespaces left: \(namespaces)")
    }
}
