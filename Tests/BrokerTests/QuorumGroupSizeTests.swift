import Broker
import PipelineTesting
import Testing

/// Every quorum queue is declared with `x-quorum-initial-group-size`, which only matters
/// when the broker creates the queue. RabbitMQ still refuses a declaration that differs from
/// an existing queue in it, so queues an earlier version created without it (or with another
/// value) are taken as they are; every other argument is still held to the code.
@Suite struct QuorumGroupSizeTests {
    /// The pipeline's topology as versions before the group size declared it.
    static func withoutGroupSize(_ topology: Topology) -> Topology {
        var old = topology
        old.queues = topology.queues.map { queue in
            QueueSpec(name: queue.name, arguments: queue.arguments.filter { $0.key != "x-quorum-initial-group-size" })
        }
        return old
    }

    @Test func everyPipelineQueueAsksForThreeReplicasUnlessToldOtherwise() {
        let topology = PipelineTopology(prefix: "iap")
        for queue in topology.topology.queues {
            #expect(queue.arguments["x-quorum-initial-group-size"] == .int(3), "\(queue.name)")
        }
        let five = PipelineTopology(prefix: "iap", quorumGroupSize: 5)
        #expect(five.topology.queues.allSatisfy { $0.arguments["x-quorum-initial-group-size"] == .int(5) })
    }

    @Test func queuesCreatedWithoutAGroupSizeAreKeptAsTheyAre() async throws {
        // Given the pipeline's queues as an earlier version created them
        let broker = BrokerFixture(label: "group")
        let current = broker.pipelineTopology().topology
        let old = try await broker.connect(topology: Self.withoutGroupSize(current), label: "old")
        await old.close()

        // When this version connects and declares its topology
        try await broker.withConnection(topology: current) { connection in
            // Then it is up, and every queue was kept
            let kept = try await connection.withControlChannel { channel throws(BrokerError) in
                try channel.declare(current)
            }
            #expect(Set(kept) == Set(current.queues.map(\.name)))
        }
    }

    @Test func aQueueWithAnotherGroupSizeIsKeptToo() async throws {
        let broker = BrokerFixture(label: "group5")
        let three = broker.pipelineTopology().topology
        let five = PipelineTopology(prefix: broker.prefix, retryDelays: [.seconds(1), .seconds(2)], quorumGroupSize: 5)
        try await broker.withConnection(topology: five.topology) { connection in
            let kept = try await connection.withControlChannel { channel throws(BrokerError) in
                try channel.declare(three)
            }
            #expect(Set(kept) == Set(three.queues.map(\.name)))
        }
    }

    @Test func aQueueThatDiffersInAnotherArgumentIsStillRefused() async throws {
        // Given the validate queue created without a group size and with another delivery limit
        let broker = BrokerFixture(label: "group-drift")
        let pipeline = broker.pipelineTopology()
        var drifted = Self.withoutGroupSize(broker.pipelineTopology(deliveryLimit: 10).topology)
        drifted.queues = drifted.queues.filter { $0.name == pipeline.validateQueue }
        try await broker.withConnection(topology: pipeline.topology) { connection in
            try await connection.withControlChannel { channel throws(BrokerError) in
                try channel.deleteQueue(pipeline.validateQueue)
            }
            try await connection.declare(drifted)

            // Then declaring the pipeline's is refused, naming the argument
            do throws(BrokerError) {
                try await connection.declare(pipeline.topology)
                Issue.record("a drifted x-delivery-limit was accepted")
            } catch {
                #expect(error.code == .refused && error.message.contains("x-delivery-limit"), "\(error)")
            }
        }
    }
}
