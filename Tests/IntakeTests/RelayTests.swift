import Broker
import Database
import DatabaseSQLite
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// The relay against a real broker: nothing committed is left unpublished.
@Suite struct RelayTests {
    func newReceipts(_ count: Int) -> [NewReceipt] {
        (0..<count).map { index in NewReceipt.fixture(accountID: "player-\(index % 7)") }
    }

    /// The receipts on the validate queue, `count` of them, taken off it; then the queue is
    /// empty: nothing was published twice.
    func takeReceipts(
        _ count: Int, _ connection: AMQPConnection, _ topology: PipelineTopology
    ) async throws -> [String] {
        var ids: [String] = []
        for try await delivery in connection.consume(queue: topology.validateQueue, prefetch: 100) {
            for part in try #require(delivery.parts) {
                let submission = try WireCoding.decoder().decode(Submission.self, from: Data(part.body))
                #expect(part.properties.messageID == submission.id)
                ids.append(submission.id)
            }
            delivery.ack()
            if ids.count >= count { break }
        }
        let empty = await eventually { (try? await connection.queueStatus(topology.validateQueue).messages) == 0 }
        #expect(empty)
        return ids
    }

    @Test func receiptsCommittedWhileTheBrokerWasAwayArePublishedByTheSweep() async throws {
        // Given receipts committed while no broker connection existed (as after a crash)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let stored = newReceipts(50)
        _ = try await IntakeRepository(database).accept(stored, now: Date().addingTimeInterval(-60))
        let broker = BrokerFixture(label: "relay")
        let topology = broker.pipelineTopology()

        // When a relay starts
        try await broker.withConnection(topology: topology.topology) { connection in
            let relay = Relay(
                connection: connection, database: database, topology: topology,
                configuration: .init(sweepInterval: .milliseconds(100), sweepGrace: .seconds(1)),
                logger: Logger(label: "test"))
            let running = Task { try await relay.run() }
            defer { running.cancel() }

            // Then every receipt reaches the validate queue and is marked published
            let published = await eventually(timeout: .seconds(20)) {
                await (try? IntakeRepository(database).unpublished(limit: 100).isEmpty) == true
            }
            #expect(published)
            let ids = try await takeReceipts(stored.count, connection, topology)
            #expect(ids.count == stored.count)
            #expect(Set(ids) == Set(stored.map(\.id)))
            #expect(try await ReceiptRepository(database).receipt(id: stored[0].id)?.status == .validating)
        }
    }

    @Test func fastPathPublishesRightAfterTheCommit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let broker = BrokerFixture(label: "fastpath")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            let relay = Relay(
                connection: connection, database: database, topology: topology,
                configuration: .init(sweepInterval: .seconds(60)), logger: Logger(label: "test"))
            let committer = GroupCommitter(database: database) { relay.enqueue($0) }
            let running = Task { try await relay.run() }
            defer { running.cancel() }

            // When 200 receipts arrive concurrently
            let receipts = newReceipts(200)
            let outcomes = try await withThrowingTaskGroup(of: AcceptOutcome.self) { group in
                for receipt in receipts { group.addTask { try await committer.accept(receipt) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // Then all are created and published without waiting for a sweep
            #expect(outcomes.allSatisfy { if case .created = $0 { true } else { false } })
            // (the confirm comes first, the mark right after it)
            let published = await eventually(timeout: .seconds(30)) {
                (try? await IntakeRepository(database).unpublished(limit: 500))?.isEmpty == true
            }
            #expect(published)
            let ids = try await takeReceipts(200, connection, topology)
            #expect(ids.count == 200 && Set(ids) == Set(receipts.map(\.id)))
        }
    }

    @Test func theSweepLeavesReceiptsOnTheFastPathToIt() async throws {
        // Given 30 old unconfirmed receipts, 20 of them handed to the fast path, whose marks
        // have not run yet (as when publishing and marking take longer than the grace)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let stored = newReceipts(30)
        _ = try await IntakeRepository(database).accept(stored, now: Date().addingTimeInterval(-60))
        let broker = BrokerFixture(label: "inhand")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            let relay = Relay(
                connection: connection, database: database, topology: topology,
                configuration: .init(sweepGrace: .seconds(1)), logger: Logger(label: "test"))
            let unpublished = try await IntakeRepository(database).unpublished(limit: 100)
            let handed = Set(stored.prefix(20).map(\.id))
            relay.enqueue(unpublished.filter { handed.contains($0.id) })

            // When the sweep runs
            await relay.sweep()

            // Then it publishes the 10 nobody holds, and only those
            let left = await Set(try IntakeRepository(database).unpublished(limit: 100).map(\.id))
            #expect(left == handed)

            // And once the marks run, each of the 20 is marked, still published once: the fast
            // path's 20 and the sweep's 10 are 30 receipts on the queue, not 50
            let running = Task { try await relay.run() }
            defer { running.cancel() }
            let all = await eventually(timeout: .seconds(20)) {
                (try? await IntakeRepository(database).unpublished(limit: 100))?.isEmpty == true
            }
            #expect(all)
            let ids = try await takeReceipts(30, connection, topology)
            #expect(ids.count == 30 && Set(ids) == Set(stored.map(\.id)))
        }
    }
}
