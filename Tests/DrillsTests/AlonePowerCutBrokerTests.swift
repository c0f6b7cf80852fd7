import Broker
import Drills
import Foundation
import Logging
import PipelineTesting
import Synchronization
import Testing

/// RabbitMQ against power cuts (``PowerCutBroker``): a quorum queue keeps every message whose
/// publisher confirm arrived, however often the power goes under load. Needs root, the lab's
/// powercut-fs (`scripts/powercut-fs.sh build`) and RabbitMQ's package; the pass of tests that
/// have the machine alone runs it.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AlonePowerCutBrokerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let queue = "drill.power"

    @Test func everyConfirmedMessageSurvivesFivePowerCuts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = try #require(
            PowerCutVolume.locateExecutable(directory: Self.root), "build it: scripts/powercut-fs.sh build")
        let volume = try PowerCutVolume(directory: directory.path + "/disk", executable: executable, journal: true)
        let broker = try PowerCutBroker(volume: volume, directory: directory.path + "/node")
        // A failed expectation must not leave a node behind (the volume stays mounted then).
        defer { broker.kill() }
        try await broker.start()

        // Given a publisher that sends persistent messages to a quorum queue without pause,
        // counting each one the broker confirmed
        var configuration = try AMQPConfiguration(url: broker.amqpURL)
        configuration.reconnectDelay = .milliseconds(100)...(.milliseconds(500))
        let topology = Topology(
            exchanges: [], queues: [QueueSpec(name: Self.queue, arguments: ["x-queue-type": "quorum"])], bindings: [])
        // Its reconnection attempts while the node is down are expected: not logged.
        var logger = Logger(label: "drill")
        logger.logLevel = .error
        let connection = AMQPConnection(configuration: configuration, topology: topology, logger: logger)
        connection.start()
        try await connection.waitUntilConnected()
        // The queue is there before the power goes, as a deployed pipeline's is: Ra records a
        // new queue's server in names.dets without fsync, and a cut before that reaches the
        // disk orphans the queue, its messages with it (see PowerCutBroker). A clean restart
        // writes it out; the boot's settle makes it durable.
        try await broker.stop()
        try await broker.start()
        try await connection.waitUntilConnected()
        let tally = Tally()
        let publishing = Task { await Self.publish(connection, tally) }

        // When the power goes five times, the node killed and booted again each time
        for cut in 1...5 {
            try await Self.awaitProgress(of: tally)
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1500)))
            let before = tally.confirmed.load(ordering: .relaxed)
            let summary = try await broker.cut()
            let booting = ContinuousClock.now
            try await broker.start()
            print("cut \(cut): \(before) confirmed before it; booted in \(ContinuousClock.now - booting); \(summary)")
        }
        try await Self.awaitProgress(of: tally)
        publishing.cancel()
        await publishing.value
        await connection.close()

        // Then the queue holds every confirmed message (more if a publish got in whose confirm
        // the cut cut off)
        let confirmed = tally.confirmed.load(ordering: .relaxed)
        let stored = try await Self.messages(in: Self.queue, broker: broker, atLeast: confirmed)
        print("power cuts: \(confirmed) messages confirmed, \(stored) in the queue after the last boot")
        #expect(confirmed > 0)
        #expect(stored >= confirmed, "confirmed messages lost; see \(broker.logFile)")
        try await broker.stop()
        await volume.unmount()
    }

    /// Publishes batches of 50 until cancelled; while the node is down a batch fails at once,
    /// so it waits a little before the next.
    static func publish(_ connection: AMQPConnection, _ tally: Tally) async {
        var next = 0
        while !Task.isCancelled {
            let batch = (next..<next + 50).map {
                OutgoingMessage(exchange: "", routingKey: queue, body: Array("message-\($0)".utf8))
            }
            next += batch.count
            let results = await connection.publish(batch)
            let accepted = results.filter { (try? $0.get()) != nil }.count
            tally.confirmed.add(accepted, ordering: .relaxed)
            if accepted < batch.count { try? await Task.sleep(for: .milliseconds(100)) }
        }
    }

    /// Waits (up to 15 s) until 500 more messages were confirmed: the queue's leader is
    /// elected and the publisher back, so that the next cut falls under load.
    static func awaitProgress(of tally: Tally) async throws {
        let start = tally.confirmed.load(ordering: .relaxed)
        for _ in 0..<150 where tally.confirmed.load(ordering: .relaxed) < start + 500 {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The queue's message count once it has reached `atLeast` or stopped growing for 3 s: a
    /// quorum queue answers 0 until its log is recovered, seconds after the node is up.
    static func messages(in queue: String, broker: PowerCutBroker, atLeast: Int) async throws -> Int {
        let configuration = try AMQPConfiguration(url: broker.amqpURL)
        var logger = Logger(label: "drill-count")
        logger.logLevel = .error
        let connection = AMQPConnection(configuration: configuration, logger: logger)
        connection.start()
        try await connection.waitUntilConnected()
        var count = 0
        var unchanged = 0
        for _ in 0..<60 where count < atLeast && unchanged < 6 {
            let now = try await connection.queueStatus(queue).messages
            unchanged = now == count && now > 0 ? unchanged + 1 : 0
            count = now
            if count < atLeast { try await Task.sleep(for: .milliseconds(500)) }
        }
        await connection.close()
        return count
    }
}

/// What the publisher counted, read by the test between cuts.
final class Tally: Sendable {
    let confirmed = Atomic<Int>(0)
}
