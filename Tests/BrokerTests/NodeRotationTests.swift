import Testing

@testable import Broker

/// Which node a connection tries next: in list order, from the one after the node that
/// failed last, backing off only once every node has failed in turn.
@Suite struct NodeRotationTests {
    enum Event { case failed, connected, lost }

    /// After each event: the node tried next (1-based), and `+` when the connection backs off.
    static func trace(nodes: Int, _ events: [Event]) -> [String] {
        var rotation = NodeRotation(count: nodes)
        return events.map { event in
            var backsOff = false
            switch event {
            case .failed: backsOff = rotation.connectFailed()
            case .connected: rotation.connected()
            case .lost: rotation.lost()
            }
            return "\(rotation.next + 1)\(backsOff ? "+" : "")"
        }
    }

    @Test func startsWithTheFirstNodeAndStaysOnTheOneThatAnswered() {
        #expect(NodeRotation(count: 3).next == 0)
        #expect(Self.trace(nodes: 3, [.connected]) == ["1"])
    }

    @Test func aLostNodeIsFollowedByTheNextAndComesLastInTheRound() {
        // Node 1 does not answer, node 2 does; then node 2 goes and nothing answers: node 3,
        // node 1, and node 2 last, whose failure completes the round
        #expect(
            Self.trace(nodes: 3, [.failed, .connected, .lost, .failed, .failed, .failed])
                == ["2", "2", "3", "1", "2", "3+"])
    }

    @Test func everyNodeFailingInTurnIsARoundAfterWhichTheCountStartsAgain() {
        #expect(Self.trace(nodes: 2, [.failed, .failed, .failed, .failed]) == ["2", "1+", "2", "1+"])
        // A connect in between starts the count afresh
        #expect(Self.trace(nodes: 2, [.failed, .connected, .failed, .failed]) == ["2", "2", "1", "2+"])
    }

    @Test func oneNodeBacksOffAfterEveryFailureAsBefore() {
        #expect(Self.trace(nodes: 1, [.failed, .failed, .connected, .lost, .failed]) == ["1+", "1+", "1", "1", "1+"])
    }
}
