import Broker
import Drills
import Foundation
import Logging
import Observability
import PipelineTesting
import Repositories
import StubStore
import Synchronization
import Testing

@testable import EndToEndSupport

/// RabbitMQ's disk alarm: the broker blocks every publishing connection until it clears. The
/// intake keeps taking receipts (202), which wait in its database: the relay marks none
/// published that the broker did not confirm, and once the broker has said it blocks (at the
/// first publish), publishes none until it clears; connections are kept, not given up as
/// dead; when the alarm clears, the relay drains everything and every receipt is credited
/// once, with its webhook. The alarm is the shared broker's: the test needs the
/// machine alone (`IAP_TEST_ALONE=1`), and clears it however it ends.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AloneDiskAlarmTests {
    @Test func aDiskAlarmHoldsReceiptsInTheDatabaseAndTheRelayDrainsThemWhenItClears() async throws {
        let metrics = MetricsBootstrap.prometheus()
        try await PipelineHarness.run { pipeline in
            // Given a pipeline at work: 20 receipts credited
            var accepted: [String] = []
            for index in 0..<20 {
                accepted.append(try #require(try await pipeline.postCoins(index, prefix: "alarm").receiptID))
            }
            for id in accepted { #expect(try await pipeline.finalStatus(id)["status"] as? String == "credited") }
            // And a connection of the test's own that gives up on a publish unconfirmed for 2 s
            let probeQueue = Topology(
                exchanges: [], queues: [QueueSpec(name: "\(pipeline.broker.prefix).alarm-probe")], bindings: [])
            var probeConfiguration = pipeline.broker.configuration
            probeConfiguration.rpcTimeout = .seconds(2)
            let probe = AMQPConnection(
                configuration: probeConfiguration, topology: probeQueue, logger: Logger(label: "alarm-probe"))
            probe.start()
            try await probe.waitUntilConnected()

            // When the broker's disk alarm goes off
            let alarm = try await BrokerDiskAlarm.raise()
            defer { alarm.clear() }
            let raised = ContinuousClock.now

            // Then a connection that publishes hears that publishing is blocked (the broker
            // blocks a connection at its first publish during the alarm, and says so then)
            let probePublish = Task {
                await probe.publish([
                    OutgoingMessage(exchange: "", routingKey: probeQueue.queues[0].name, body: Array("probe".utf8))
                ])
            }
            #expect(await eventually(timeout: .seconds(10)) { probe.isBlocked }, "connection.blocked never came")
            print("disk alarm drill: a publishing connection blocked \(ContinuousClock.now - raised) after the alarm")

            // And the intake keeps taking receipts, which wait in its database unpublished
            let before = try await ReceiptRepository(pipeline.database).receiptStatusCounts()
            for index in 20..<60 {
                let answer = try await pipeline.postCoins(index, prefix: "alarm")
                #expect(answer.response.status == 202, "\(answer.response.bodyString)")
                if let id = answer.receiptID { accepted.append(id) }
            }
            let cpu = ProcessCPU()
            // Three times the probe's patience: a connection that took the wait for a dead
            // channel would have reconnected by now.
            try await Task.sleep(for: .seconds(6))
            let busy = cpu.seconds
            let held = try await IntakeRepository(pipeline.database).unpublished(limit: 1000).count
            let during = try await ReceiptRepository(pipeline.database).receiptStatusCounts()
            print(
                "disk alarm drill: while the alarm lasts: 40 taken (202), \(held) unpublished, "
                    + "credited \(during[.credited, default: 0]) (before: \(before[.credited, default: 0])), "
                    + "CPU \(String(format: "%.2f", busy)) s in 6 s, probe reconnects \(probe.connectCount - 1)")
            #expect(held == 40, "a receipt was marked published that the broker never confirmed")
            #expect(during[.credited, default: 0] == before[.credited, default: 0])
            #expect(probe.connectCount == 1, "the blocked connection was given up")
            #expect(busy < 3, "the pipeline spun while the broker blocked it: \(busy) s of CPU in 6 s")
            #expect(Self.gauge(metrics, MetricName.relayBlocked) == 1)

            // When the alarm clears
            alarm.clear()
            let cleared = ContinuousClock.now

            // Then what waited is confirmed, and the relay drains every receipt: each credited
            // once, with its webhook
            let probeResults = await probePublish.value
            #expect(probeResults.allSatisfy { (try? $0.get()) != nil }, "\(probeResults)")
            for id in accepted {
                #expect(try await pipeline.finalStatus(id, timeout: .seconds(60))["status"] as? String == "credited")
            }
            print("disk alarm drill: all \(accepted.count) credited \(ContinuousClock.now - cleared) after it cleared")
            #expect(try await IntakeRepository(pipeline.database).unpublished(limit: 1000).isEmpty)
            let stored = try await ReceiptRepository(pipeline.database).receiptStatusCounts().values.reduce(0, +)
            #expect(stored == accepted.count)
            for player in 0..<10 {
                #expect(try await pipeline.balance("alarm-player-\(player)") == 600)
            }
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            let webhooks = await eventually(timeout: .seconds(30)) {
                accepted.allSatisfy { !pipeline.webhooks(for: $0).isEmpty }
            }
            #expect(webhooks)
            #expect(await eventually(timeout: .seconds(5)) { Self.gauge(metrics, MetricName.relayBlocked) == 0 })
            #expect(probe.connectCount == 1)
            await pipeline.broker.cleanUp(probeQueue, probe)
        }
    }

    /// A gauge's value in this process's registry; nil when it has none.
    static func gauge(_ registry: MetricsRegistry, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        return (try? PrometheusText(parsing: text))?.families[name]?.samples.first { sample in
            labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }?.value
    }
}

/// The shared broker's disk alarm, raised by setting its free-disk limit far above the disk
/// (`rabbitmqctl set_disk_free_limit`), and cleared by setting it back to the default 50 MB.
final class BrokerDiskAlarm: Sendable {
    /// Clears the alarm after two minutes should this process die first: every other test
    /// shares the broker.
    private let watchdog: SpawnedProcess
    private let cleared = Mutex(false)

    private init(watchdog: SpawnedProcess) {
        self.watchdog = watchdog
    }

    static func raise() async throws -> BrokerDiskAlarm {
        let watchdog = try SpawnedProcess.start(
            "/bin/sh", ["-c", "sleep 120; exec rabbitmqctl set_disk_free_limit 50MB"])
        let alarm = BrokerDiskAlarm(watchdog: watchdog)
        do {
            try await Rabbitmqctl.run("set_disk_free_limit", "1000000GB")
        } catch {
            alarm.clear()
            throw error
        }
        return alarm
    }

    /// Sets the limit back, waiting for it (a `defer` cannot await); once.
    func clear() {
        guard
            cleared.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        _ = try? SpawnedProcess.run("/usr/bin/env", ["rabbitmqctl", "set_disk_free_limit", "50MB"])
        // The watchdog's shell and its sleep: its process group, its own.
        kill(-watchdog.processIdentifier, SIGKILL)
        watchdog.waitUntilExit()
    }
}

/// This process's CPU time (user and system) since it was made.
struct ProcessCPU {
    private let start = Self.now()

    var seconds: Double { Self.now() - start }

    private static func now() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
