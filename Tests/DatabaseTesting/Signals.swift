import Foundation
import Synchronization
import Testing

/// Set once, read from any task.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// How many times the listener was told to look.
final class Heard: Sendable {
    private let value = Mutex(0)

    var count: Int { value.withLock { $0 } }

    func add() { value.withLock { $0 += 1 } }

    /// Returns once at least `count` were heard; a generous bound, not a timing.
    func wait(for count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while self.count < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("heard \(self.count) of \(count) within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
