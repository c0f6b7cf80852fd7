import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap-lab chaos --power` as CI runs it, small: 200 receipts, the SQLite database (or, with
/// `--postgres`, a PostgreSQL server's data directory) on the lab's power-cut volume, 20 cuts
/// (every stage and the server SIGKILLed at once and every unsynced write dropped),
/// RabbitMQ's app stopped and started; then every promise checked. Needs root (FUSE) and the
/// broker to itself (`IAP_TEST_ALONE=1`); `scripts/test.sh` builds powercut-fs first.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AloneChaosPowerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: [false, true])
    func twentyPowerCutsLoseNoAcceptedReceiptAndCreditNoneTwice(postgres: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = ProcessInfo.processInfo.environment
        var arguments =
            [
                "chaos", "--power", "--cuts", "20", "--cut-interval", "1.5-2.5", "--receipts", "200", "--load-seconds",
                "10", "--outage-seconds", "3", "--seed", "7", "--keep", directory.file("run"),
                "--powercut-fs", Self.root + "/.build/powercut-fs/powercut-fs",
            ] + (postgres ? ["--postgres"] : [])
        if let node = environment["IAP_TEST_RABBITMQ_NODE"] { arguments += ["--rabbitmq-node", node] }
        let outcome = try await ChildProcess.run(
            IAPProcess.lab, arguments,
            environment: ["IAP_AMQP_URL": BrokerFixture(label: "power").url, "IAP_LOG_LEVEL": "error"])
        let report = outcome.output
        print(report)
        try #require(outcome.status == 0, "iap-lab chaos --power failed:\n\(report)")

        #expect(report.contains("result: no violations"), "\(report)")
        #expect(report.contains("200 accepted (2xx)"), "\(report)")
        let cuts = report.firstMatch(of: /power\s+(\d+) cuts/).flatMap { Int($0.1) } ?? 0
        #expect(cuts >= 20, "\(report)")
        #expect(report.contains("power cut 20:"), "\(report)")
    }
}
