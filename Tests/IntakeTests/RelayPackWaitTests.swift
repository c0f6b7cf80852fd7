import Broker
import Database
import DatabaseSQLite
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import ServiceLifecycle
import SettlementWriter
import Testing

@testable import Intake

/// The relay's wait for company (`Relay.Configuration.packWait`): receipts of separate
/// commits share a message, and shutdown publishes what still waits.
@Suite struct RelayPackWaitTests {
    let relayTests = RelayTests()

    /// The messages on the validate queue until `count` receipts have come: each message's receipt ids.
    func messages(
        _ count: Int, _ connection: AMQPConnection, _ topology: PipelineTopology
    ) async throws -> [[String]] {
        var messages: [[String]] = []
        for try await delivery in connection.consume(queue: topology.validateQueue, prefetch: 100) {
            let parts = try #require(delivery.parts)
            messages.append(
                try parts.map { try WireCoding.decoder().decode(Submission.self, from: Data($0.body)).id })
            delivery.ack()
            if messages.joined().count >= count { break }
        }
        return messages
    }

    @Test func receiptsOfSeparateCommitsWithinTheWaitShareAMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let broker = BrokerFixture(label: "packwait")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            let relay = Relay(
                connection: connection, database: database, topology: topology,
                configuration: .init(sweepInterval: .seconds(60), packWait: .milliseconds(500)),
                logger: Logger(label: "test"))
            let committer = GroupCommitter(database: database, maxWait: .zero) { relay.enqueue($0) }
            let running = Task { try await relay.run() }
            defer { running.cancel() }

            // When three receipts are committed one after another, well within the wait
            let receipts = relayTests.newReceipts(3)
            for receipt in receipts { _ = try await committer.accept(receipt) }

            // Then one message carries all three, and each is marked published
            let messages = try await messages(3, connection, topology)
            #expect(messages == [receipts.map(\.id)])
            let marked = await eventually(timeout: .seconds(10)) {
                (try? await IntakeRepository(database).unpublished(limit: 10))?.isEmpty == true
            }
            #expect(marked)
        }
    }

    @Test func gracefulShutdownPublishesAndMarksWhatStillWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let broker = BrokerFixture(label: "packdrain")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            // Given receipts committed into a wait far longer than the test
            let relay = Relay(
                connection: connection, database: database, topology: topology,
                configuration: .init(sweepInterval: .seconds(60), packWait: .seconds(600)),
                logger: Logger(label: "test"))
            let committer = GroupCommitter(database: database, maxWait: .zero) { relay.enqueue($0) }
            var logger = Logger(label: "service-group")
            logger.logLevel = .warning
            let group = ServiceGroup(configuration: .init(services: [relay], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                let receipts = relayTests.newReceipts(5)
                for receipt in receipts { _ = try await committer.accept(receipt) }
                try await Task.sleep(for: .milliseconds(200))
                #expect(try await connection.queueStatus(topology.validateQueue).messages == 0)

                // When the intake shuts down gracefully
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()

                // Then, by the time the relay returned, all were published and marked
                #expect(try await IntakeRepository(database).unpublished(limit: 10).isEmpty)
                let messages = try await messages(5, connection, topology)
                #expect(messages.joined().sorted() == receipts.map(\.id).sorted())
            }
        }
    }
}
