import Database
import Foundation
import SettlementWriter
import Synchronization

/// Lets one write at a time through to GRDB's writer, urgent ones first.
///
/// GRDB runs writes in the order they arrive, so a commit that HTTP requests wait on
/// could wait behind every mark and batch queued before it. Here an urgent write waits
/// for at most the one write in progress and, when a normal write is also waiting, one
/// more (urgent and normal take turns, so that neither starves). Waiting suspends the
/// task, never its thread. Across processes the write lock file decides (``FileLock``),
/// in the order writers arrive.
final class WriteGate: Sendable {
    private typealias Waiter = CheckedContinuation<Void, Never>

    private struct State {
        var busy = false
        var urgent: [Waiter] = []
        var normal: [Waiter] = []
        var lastWasUrgent = false
    }

    private let state = Mutex(State())

    /// Runs `body` when its turn comes.
    func pass<T>(_ priority: WritePriority, _ body: () async throws -> T) async rethrows -> T {
        await enter(urgent: priority == .urgent)
        defer { leave() }
        return try await body()
    }

    private func enter(urgent: Bool) async {
        await withCheckedContinuation { (waiter: Waiter) in
            let go = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    state.lastWasUrgent = urgent
                    return true
                }
                if urgent { state.urgent.append(waiter) } else { state.normal.append(waiter) }
                return false
            }
            if go { waiter.resume() }
        }
    }

    /// Hands the gate on: urgent goes unless it just went and a normal write waits.
    private func leave() {
        let next = state.withLock { state -> Waiter? in
            if !state.urgent.isEmpty, !(state.lastWasUrgent && !state.normal.isEmpty) {
                state.lastWasUrgent = true
                return state.urgent.removeFirst()
            }
            if !state.normal.isEmpty {
                state.lastWasUrgent = false
                return state.normal.removeFirst()
            }
            state.busy = false
            return nil
        }
        next?.resume()
    }
}
