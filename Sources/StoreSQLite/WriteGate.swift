import Foundation
import Store

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
