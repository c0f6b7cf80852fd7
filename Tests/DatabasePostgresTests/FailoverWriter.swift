import Database
import DatabasePostgres
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabaseTesting

/// Accepts and credits receipts one after another, as an intake and a fulfiller would, while
/// a failover happens; remembers each write that returned success (acknowledged) and each
/// failure.
final class FailoverWriter: Sendable {
    /// What returned success.
    struct Acknowledged: Sendable {
        var accepted: [String] = []
        var credited: Set<String> = []
    }

    /// One failover as the writer saw it.
    struct Run: Sendable, CustomStringConvertible {
        var acknowledgedBeforeKill: Acknowledged
        var failures: [any Error]
        /// From the end of the promotion to the first write acknowledged after it.
        var recovery: Duration
        /// Writes acknowledged from the kill to the end of the run.
        var acknowledgedSince: Int

        var description: String {
            "\(failures.count) transient failures, first write \(recovery) after the promotion, "
                + "\(acknowledgedSince) writes acknowledged since the kill"
        }
    }

    private struct State {
        var acknowledged = Acknowledged()
        var next = 0
        var failures: [any Error] = []
        var failedAt: [ContinuousClock.Instant] = []
        var creditedAt: [ContinuousClock.Instant] = []
        /// Writes that took over a second: when each ended, and how long it took.
        var slow: [(ended: ContinuousClock.Instant, took: Duration)] = []
    }

    private let database: PostgresPipelineDatabase
    private let state = Mutex(State())

    init(_ database: PostgresPipelineDatabase) {
        self.database = database
    }

    var acknowledged: Acknowledged { state.withLock { $0.acknowledged } }

    /// Writes while `kill` runs, a second later `promotion`, and until 50 more receipts were
    /// credited after it.
    func through(
        _ kill: () async throws -> Void, promotion: () async throws -> Void
    ) async throws -> Run {
        let stop = Flag()
        let writing = Task { await write(until: stop) }
        defer { stop.set() }
        let start = state.withLock { $0.acknowledged.credited.count }
        _ = await eventually(timeout: .seconds(30)) { credited >= start + 50 }
        let (before, failuresBefore) = state.withLock { ($0.acknowledged, $0.failures.count) }
        try await kill()
        // What a failover manager takes to decide, shortened.
        try await Task.sleep(for: .seconds(1))
        try await promotion()
        let promoted = ContinuousClock.now
        let atPromotion = credited
        _ = await eventually(timeout: .seconds(90)) { credited >= atPromotion + 50 }
        stop.set()
        await writing.value
        return state.withLock { state in
            Run(
                acknowledgedBeforeKill: before, failures: Array(state.failures[failuresBefore...]),
                recovery: (state.creditedAt.first { $0 > promoted } ?? .now) - promoted,
                acknowledgedSince: state.acknowledged.credited.count - before.credited.count)
        }
    }

    var credited: Int { state.withLock { $0.acknowledged.credited.count } }

    /// Writes while `body` runs.
    func writing<T>(_ body: () async throws -> T) async throws -> T {
        let stop = Flag()
        let writing = Task { await write(until: stop) }
        do {
            let result = try await body()
            stop.set()
            await writing.value
            return result
        } catch {
            stop.set()
            await writing.value
            throw error
        }
    }

    /// When the first write after `instant` failed, and when the first credit after that
    /// failure was acknowledged; nil while none.
    func failedAndCredited(after instant: ContinuousClock.Instant) -> (
        failed: ContinuousClock.Instant?, credited: ContinuousClock.Instant?
    ) {
        state.withLock { state in
            let failed = state.failedAt.first { $0 > instant }
            return (failed, failed.flatMap { failed in state.creditedAt.first { $0 > failed } })
        }
    }

    /// The longest a write that ended after `instant` took (over a second; else zero): how
    /// long the writer hung at most.
    func longestWrite(after instant: ContinuousClock.Instant) -> Duration {
        state.withLock { state in state.slow.filter { $0.ended > instant }.map(\.took).max() ?? .zero }
    }

    /// The failures since `instant`.
    func failures(after instant: ContinuousClock.Instant) -> [any Error] {
        state.withLock { state in zip(state.failedAt, state.failures).filter { $0.0 > instant }.map(\.1) }
    }

    private func write(until stop: Flag) async {
        while !stop.isSet {
            let (id, account) = state.withLock { state in
                state.next += 1
                return ("r\(state.next)", "a\(state.next % 10)")
            }
            do {
                try await timed { try await database.acceptNew([Fixture.receipt(id, account: account)]) }
                state.withLock { $0.acknowledged.accepted.append(id) }
            } catch {
                failed(error)
                continue
            }
            do {
                try await timed { try await credit(id, account: account) }
            } catch {
                failed(error)
            }
        }
    }

    private func timed(_ write: () async throws -> Void) async throws {
        let started = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - started
            if took > .seconds(1) { state.withLock { $0.slow.append((.now, took)) } }
        }
        try await write()
    }

    private func failed(_ error: any Error) {
        state.withLock { state in
            state.failures.append(error)
            state.failedAt.append(.now)
        }
    }

    private func credit(_ id: String, account: String) async throws {
        _ = try await SettlementRepository(database).apply(
            [Fixture.valid(id, account: account, [Fixture.purchase("t-\(id)")])], catalog: Fixture.catalog,
            now: Fixture.t0)
        state.withLock { state in
            state.acknowledged.credited.insert(id)
            state.creditedAt.append(.now)
        }
    }

    /// Credits the accepted receipts whose credit failed (the verdict is delivered again, as
    /// the broker would): an earlier attempt that committed unacknowledged finds it final.
    func creditTheRest() async throws {
        let pending = state.withLock { state in
            state.acknowledged.accepted.filter { !state.acknowledged.credited.contains($0) }
        }
        for id in pending {
            let account = "a\(Int(id.dropFirst())! % 10)"
            try await credit(id, account: account)
        }
    }

    /// Every receipt of `acknowledged` is in `database`, each credited one credited once.
    func expectEveryAcknowledgedCommit(
        in database: PostgresPipelineDatabase, of acknowledged: Acknowledged,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let rows = try await database.snapshot { session in
            try await session.rows(
                """
                SELECT r.id, r.status,
                  (SELECT count(*) FROM ledger_entries l WHERE l.transaction_id = 't-' || r.id) AS credits
                FROM receipts r
                """)
        }
        var found: [String: (status: String, credits: Int)] = [:]
        for row in rows {
            found[try row.get("id")] = (try row.get("status"), try row.get("credits", as: Int.self))
        }
        let lost = acknowledged.accepted.filter { found[$0] == nil }
        #expect(lost.isEmpty, "acknowledged, then lost: \(lost)", sourceLocation: sourceLocation)
        let uncredited = acknowledged.credited.filter { found[$0]?.status != "credited" || found[$0]?.credits != 1 }
        #expect(uncredited.isEmpty, "credited, then not once: \(uncredited.sorted())", sourceLocation: sourceLocation)
        #expect(found.values.allSatisfy { $0.credits <= 1 }, sourceLocation: sourceLocation)
    }
}
