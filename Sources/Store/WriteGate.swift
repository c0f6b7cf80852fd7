import Foundation

/// How a write transaction's commit reaches the disk.
public enum CommitSync: Sendable {
    /// Synced before the commit returns (`synchronous = FULL`): whatever a caller is told
    /// after it survives a power loss. Receipts, credits, claims.
    case durable
    /// Written to the WAL but not synced (`synchronous = NORMAL`): a power loss can take it
    /// back, together with everything committed after it and nothing before. For records
    /// whose loss only repeats work: the relay's published marks, the notifier's delivered
    /// marks. The next durable commit of any process syncs it too, since the WAL is one file.
    case relaxed
}

/// Which writes go first when several wait for the database in one process.
public enum WritePriority: Sendable {
    /// Background work: crediting, marks, claims, archives.
    case normal
    /// Someone is waiting on the answer now: the intake's group commit.
    case urgent
}

/// Lets one write at a time through to GRDB's writer, urgent ones first.
///
/// GRDB runs writes in the order they arrive, so a commit that HTTP requests wait on
/// could wait behind every mark and batch queued before it. Here an urgent write waits
/// for at most the one write in progress and, when a normal write is also waiting, one
/// more (urgent and normal take turns, so that neither starves). Across processes the
/// write lock file decides (``FileLock``), in the order writers arrive.
final class WriteGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var busy = false
    private var urgentWaiting = 0
    private var normalWaiting = 0
    private var lastWasUrgent = false

    func pass<T>(_ priority: WritePriority, _ body: () throws -> T) throws -> T {
        condition.lock()
        let urgent = priority == .urgent
        if urgent { urgentWaiting += 1 } else { normalWaiting += 1 }
        while busy || !mayGo(urgent: urgent) { condition.wait() }
        if urgent { urgentWaiting -= 1 } else { normalWaiting -= 1 }
        busy = true
        lastWasUrgent = urgent
        condition.unlock()
        defer {
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// With the gate free: urgent goes unless it just went and a normal write waits;
    /// normal goes unless an urgent one waits that did not just go.
    private func mayGo(urgent: Bool) -> Bool {
        urgent ? !(lastWasUrgent && normalWaiting > 0) : (urgentWaiting == 0 || lastWasUrgent)
    }
}
