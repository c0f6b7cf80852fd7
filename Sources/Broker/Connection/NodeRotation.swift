/// Which node of the list a connection tries next: a pure state machine, no I/O.
///
/// A connection starts with the first node and stays on the node that answered. When that
/// node goes, or a connect to a node fails, it moves on to the next one in the list (after
/// the last, the first), so that clients leave a failed node behind instead of all hammering
/// the first while it comes back. Only when every node has failed in turn (a round) does the
/// connection back off before the next round.
struct NodeRotation {
    let count: Int
    /// The node to try next, an index into the list.
    private(set) var next = 0
    /// Connect failures since the last success or loss.
    private var failures = 0

    init(count: Int) {
        precondition(count > 0, "at least one node")
        self.count = count
    }

    /// A connect to ``next`` failed: the next node is up. True when that completed a round of
    /// failures, every node tried once: time to back off.
    mutating func connectFailed() -> Bool {
        next = (next + 1) % count
        failures += 1
        guard failures >= count else { return false }
        failures = 0
        return true
    }

    /// Connected to ``next``; it stays the node until it goes.
    mutating func connected() {
        failures = 0
    }

    /// The connection to ``next`` was lost: the next attempt goes to the node after it, and
    /// this one comes last in the new round.
    mutating func lost() {
        next = (next + 1) % count
        failures = 0
    }
}
