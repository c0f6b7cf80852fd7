import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap-lab chaos --cluster` as CI's alone pass runs it, on the real clusters of
/// `scripts/cluster-rabbitmq.sh` (three nodes) and `scripts/cluster-postgres.sh` (a primary
/// and its synchronous standby), each node in a network namespace of its own like every
/// stage: 2,000 receipts while stages are SIGKILLed, one broker node is SIGKILLed and
/// started again and another's app stopped and started, the PostgreSQL primary is stopped
/// hard and the standby promoted (the old primary rejoins as its standby), the fulfiller is
/// cut off for 30 s, the notifier cannot reach the webhook receiver for 30 s, the verify
/// endpoint is away and webhooks are refused; then every promise checked. Needs root; the
/// clusters and namespaces are torn down however the run ends.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneChaosClusterTests {
    @Test func twoThousandReceiptsThroughNodeLossFailoverAndPartitionsKeepEveryPromise() async throws {
        if let reason = RabbitMQCluster.unavailableReason
            ?? (PostgresCluster.isAvailable ? nil : "no PostgreSQL 15 server programs or not root")
        {
            Issue.record("the clusters cannot be built here: \(reason)")
            return
        }
        let directory = try TemporaryDirectory()
        // Whatever became of the run, no namespace (nor the iptables rules inside one) outlives it.
        defer {
            NetworkNamespace.removeAll(prefix: "chaos-")
            directory.remove()
        }
        let report = try await RabbitMQCluster.run { broker in
            try await PostgresCluster.with { _ in
                let outcome = try await ChildProcess.run(
                    IAPProcess.lab,
                    [
                        "chaos", "--cluster", "--receipts", "2000", "--seed", "5", "--load-seconds", "60",
                        "--database-url", PostgresCluster.url, "--keep", directory.file("run"),
                    ],
                    environment: ["IAP_AMQP_URL": broker.url, "IAP_LOG_LEVEL": "error"])
                try #require(outcome.status == 0, "iap-lab chaos --cluster failed:\n\(outcome.output)")
                return outcome.output
            }
        }

        #expect(report.contains("result: no violations"), "\(report)")
        #expect(report.contains("2000 accepted (2xx)"), "\(report)")
        // Each cluster fault was dealt and undone, the partitions at their planned length.
        let faults = [
            /fulfiller cut off from the broker and the database \(vh-chaos-fulfil down\) from \+[\d.]+ s to \+[\d.]+ s \((\d+)\.\d s\)/,
            /notifier partitioned from the webhook receiver \(DROP to 10\.77\.0\.1:\d+\) from \+[\d.]+ s to \+[\d.]+ s \((\d+)\.\d s\)/,
        ]
        for fault in faults {
            let seconds = report.firstMatch(of: fault).flatMap { Int($0.1) }
            #expect(seconds.map { $0 >= 30 } == true, "a partition missing or short:\n\(report)")
        }
        for fault in ["RabbitMQ node", "PostgreSQL primary stopped hard and the standby promoted"] {
            #expect(report.contains(fault), "no \(fault) fault:\n\(report)")
        }
        #expect(!report.contains("NEVER UNDONE"), "\(report)")
        #expect(!report.contains("  skipped     "), "a fault was skipped:\n\(report)")
        for stage in ["intake", "validator-1", "validator-2", "fulfiller", "notifier"] {
            #expect(report.contains("SIGKILL \(stage), restarted"), "never killed \(stage):\n\(report)")
        }
        // The run took its namespaces down itself, and the clusters went with their scopes.
        let namespaces = try await ChildProcess.run(command: "ip", ["netns", "list"]).output
        #expect(!namespaces.contains("iap-chaos-"), "namespaces left: \(namespaces)")
        #expect(!namespaces.contains("iap-rmq") && !namespaces.contains("iap-pg"), "namespaces left: \(namespaces)")
    }
}
