import Broker
import Database
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import Testing

@testable import Intake

/// Intakes that share a database: each relay publishes its own intake's rows, and the rows of
/// a relay gone silent are adopted by exactly one other. On both backends.
@Suite struct RelaySharingTests {
    func relay(_ connection: AMQPConnection, _ database: any SQLDatabase, _ topology: PipelineTopology) -> Relay {
        Relay(
            connection: connection, database: database, topology: topology,
            configuration: .init(sweepInterval: .seconds(1), sweepGrace: .seconds(1), lease: .seconds(10)),
            logger: Logger(label: "test"))
    }

    /// Receipts committed by `owner`'s intake a minute ago, still unconfirmed.
    func committed(_ count: Int, by owner: String, _ database: any SQLDatabase) async throws -> [NewReceipt] {
        let receipts = (0..<count).map { NewReceipt.fixture(accountID: "player-\($0 % 5)") }
        _ = try await IntakeRepository(database, relay: owner).accept(receipts, now: Date().addingTimeInterval(-60))
        return receipts
    }

    @Test(arguments: TestBackend.allCases)
    func aSweepLeavesTheRowsOfAnotherLiveRelayAlone(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let broker = BrokerFixture(label: "relay-live-\(backend)")
            let topology = broker.pipelineTopology()
            try await broker.withConnection(topology: topology.topology) { connection in
                // Given an intake's 20 receipts that its relay holds and has not marked yet
                // (its marks slower than the grace, as under load), its relay alive
                let other = relay(connection, database, topology)
                let receipts = try await committed(20, by: other.id, database)
                try await RelayRepository(database).beat(other.id, now: Date())

                // When a second intake's relay sweeps
                await relay(connection, database, topology).sweep()

                // Then it published none of them: they are the first relay's to publish
                #expect(try await IntakeRepository(database).unpublished(limit: 100).count == receipts.count)
                #expect(try await connection.queueStatus(topology.validateQueue).messages == 0)
            }
        }
    }

    @Test(arguments: TestBackend.allCases)
    func theRowsOfASilentRelayArePublishedOnceByTheOthers(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let broker = BrokerFixture(label: "relay-silent-\(backend)")
            let topology = broker.pipelineTopology()
            try await broker.withConnection(topology: topology.topology) { connection in
                // Given 40 receipts of an intake whose relay last beat a minute ago (it crashed)
                let gone = relay(connection, database, topology)
                let receipts = try await committed(40, by: gone.id, database)
                try await RelayRepository(database).beat(gone.id, now: Date().addingTimeInterval(-60))

                // When two other intakes' relays sweep at the same moment
                let (first, second) = (relay(connection, database, topology), relay(connection, database, topology))
                async let one: Void = first.sweep()
                async let two: Void = second.sweep()
                _ = await (one, two)

                // Then every receipt is published and marked, each once
                try #require(try await IntakeRepository(database).unpublished(limit: 100).isEmpty)
                var ids: [String] = []
                let deadline = ContinuousClock.now + .seconds(20)
                for try await delivery in connection.consume(queue: topology.validateQueue, prefetch: 100) {
                    for part in try #require(delivery.parts) {
                        ids.append(try WireCoding.decoder().decode(Submission.self, from: Data(part.body)).id)
                    }
                    delivery.ack()
                    if ids.count >= receipts.count || ContinuousClock.now > deadline { break }
                }
                #expect(ids.sorted() == receipts.map(\.id).sorted())
                let empty = await eventually {
                    (try? await connection.queueStatus(topology.validateQueue).messages) == 0
                }
                #expect(empty)
            }
        }
    }

    @Test(arguments: TestBackend.allCases)
    func aRelayThatLeftLeavesItsRowsToTheNextSweep(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let broker = BrokerFixture(label: "relay-left-\(backend)")
            let topology = broker.pipelineTopology()
            try await broker.withConnection(topology: topology.topology) { connection in
                // Given an intake that stopped with 5 receipts it could not publish (its broker down)
                let left = relay(connection, database, topology)
                _ = try await committed(5, by: left.id, database)
                try await RelayRepository(database).beat(left.id, now: Date())
                try await RelayRepository(database).leave(left.id, now: Date())

                // When another relay sweeps, it publishes them at once, not a lease later
                await relay(connection, database, topology).sweep()
                #expect(try await IntakeRepository(database).unpublished(limit: 100).isEmpty)
            }
        }
    }
}
