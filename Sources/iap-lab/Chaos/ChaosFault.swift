import Foundation
import Synchronization

/// A fault the plan deals at a set time and, unless it is a one-off, undoes a while later: a
/// partition, a broker node killed and restarted, a PostgreSQL failover. Faults of one
/// ``ChaosFaultChain`` follow each other (two broker nodes are never down at once, which
/// would leave a three-node cluster without a majority); chains run side by side, each in a
/// task of its own, so that a slow script (a node restart waits until it runs) delays no
/// other fault and no kill.
struct ChaosFault: Sendable {
    /// For the timeline and the report: `fulfiller cut off from the broker and the database`.
    var name: String
    /// Seconds from the start of the faults; a fault never begins before the one before it
    /// in its chain has ended.
    var at: Double
    /// Seconds from its beginning to its end; nil for a one-off.
    var duration: Double?
    var begin: @Sendable () async throws -> Void
    var end: @Sendable () async throws -> Void = {}
    /// After a failed run, for a fault that began and did not end: what must not outlive the
    /// run (a partition) undone, without throwing.
    var recover: @Sendable () async -> Void = {}
}

typealias ChaosFaultChain = [ChaosFault]

/// What happened to one planned fault, for the report.
struct ChaosFaultRecord: Sendable {
    var name: String
    var began: Double?
    var ended: Double?
    var oneOff: Bool

    var done: Bool { oneOff ? began != nil : ended != nil }

    var summary: String {
        guard let began else { return "\(name): never began" }
        if oneOff { return String(format: "%@ at +%.1f s", name, began) }
        guard let ended else { return String(format: "%@ from +%.1f s, NEVER UNDONE", name, began) }
        return String(format: "%@ from +%.1f s to +%.1f s (%.1f s)", name, began, ended, ended - began)
    }
}

/// The run's timeline and the planned faults' records, written from the monkey's loop and
/// from each chain's task.
final class ChaosTimeline: Sendable {
    let started: ContinuousClock.Instant
    private let state = Mutex<(events: [String], records: [ChaosFaultRecord])>(([], []))
    private let failure = Atomic<Bool>(false)

    init(started: ContinuousClock.Instant) { self.started = started }

    var elapsed: Double { (ContinuousClock.now - started).seconds }
    var events: [String] { state.withLock { $0.events } }
    var records: [ChaosFaultRecord] { state.withLock { $0.records } }

    /// A chain threw: the monkey stops, and rethrows its error.
    var failed: Bool { failure.load(ordering: .relaxed) }
    func fail() { failure.store(true, ordering: .relaxed) }

    func note(_ event: String) {
        let line = String(format: "+%6.1f s  ", elapsed) + event
        state.withLock { $0.events.append(line) }
    }

    /// Registers a fault; its index for ``began(_:)`` and ``ended(_:)``.
    func plan(_ fault: ChaosFault) -> Int {
        state.withLock {
            $0.records.append(.init(name: fault.name, oneOff: fault.duration == nil))
            return $0.records.count - 1
        }
    }

    func began(_ index: Int) {
        let now = elapsed
        state.withLock { $0.records[index].began = now }
    }

    func ended(_ index: Int) {
        let now = elapsed
        state.withLock { $0.records[index].ended = now }
    }

    /// Runs a chain in order, each fault (with its index from ``plan(_:)``) at its time:
    /// begin, wait its duration, end.
    func run(_ chain: [(fault: ChaosFault, index: Int)]) async throws {
        for (fault, index) in chain {
            try await Task.sleep(until: started + .seconds(fault.at), clock: .continuous)
            note("\(fault.name): begins")
            began(index)
            try await fault.begin()
            note("\(fault.name): \(fault.duration == nil ? "done" : "in force")")
            guard let duration = fault.duration else { continue }
            try await Task.sleep(for: .seconds(duration))
            try await fault.end()
            ended(index)
            note("\(fault.name): undone")
        }
    }
}
