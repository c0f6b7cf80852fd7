import Database
import Foundation
import NIOCore
import NIOPosix
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import Synchronization

/// Commits receipts from many concurrent requests in few transactions: one fsync for
/// every request that arrived while the previous commit was running. No request is
/// answered before its row is durable. A commit of a single receipt waits for the next
/// when the arrival rate says it is due within a few milliseconds (``CommitPacing``).
final class GroupCommitter: Sendable {
    typealias Waiter = CheckedContinuation<AcceptOutcome, any Error>

    private struct Pending {
        var items: [(receipt: NewReceipt, waiter: Waiter)] = []
        var committing = false
        /// A receipt waits for the next before its commit starts (``CommitPacing``).
        var waiting = false
        var pacing: CommitPacing
    }

    private let database: any SQLDatabase
    /// Where the drain runs: on SQLite a writer thread of its own (``SQLDatabase/makeWriteExecutor()``).
    private let writeExecutor: (any TaskExecutor)?
    private let maxBatch: Int
    private let pending: Mutex<Pending>
    private let onCommitted: @Sendable ([Submission]) -> Void
    /// The relay whose fast path takes what this commits (written on each row).
    private let relay: String?

    /// - Parameters:
    ///   - maxWait: the longest a commit of one receipt waits for a second (zero: never).
    ///   - relay: the id of the relay that `onCommitted` hands the receipts to.
    ///   - onCommitted: receives the newly stored receipts after each commit (the relay's fast path).
    init(
        database: any SQLDatabase, maxBatch: Int = 512, maxWait: Duration = .zero, relay: String? = nil,
        onCommitted: @escaping @Sendable ([Submission]) -> Void
    ) {
        self.relay = relay
        self.database = database
        self.writeExecutor = database.makeWriteExecutor()
        self.pending = Mutex(Pending(pacing: CommitPacing(maxWait: maxWait)))
        self.maxBatch = maxBatch
        self.onCommitted = onCommitted
    }

    /// Stores `receipt`, batched with whatever else is waiting; returns once durable.
    func accept(_ receipt: NewReceipt) async throws -> AcceptOutcome {
        let started = ContinuousClock.now
        defer { PipelineMetrics.intakeCommitDuration.record(ContinuousClock.now - started) }
        return try await withCheckedThrowingContinuation { waiter in
            let start = pending.withLock { pending -> Start in
                pending.items.append((receipt, waiter))
                pending.pacing.arrived(at: .now)
                if pending.committing { return .none }
                if !pending.waiting, let wait = pending.pacing.wait(pending: pending.items.count) {
                    pending.waiting = true
                    return .after(wait)
                }
                // Idle, or a receipt waited for this one: the two go together.
                pending.waiting = false
                pending.committing = true
                return .now
            }
            switch start {
            case .none: break
            case .now: startDrain()
            case .after(let wait): startDrain(after: wait)
            }
        }
    }

    private enum Start {
        case none, now
        case after(Duration)
    }

    /// One drain at a time, started by the request that found none running; it ends when
    /// nothing waits (so an idle intake holds no task). A task of its own, so that this
    /// request's cancellation cannot cancel a commit that others wait on. On SQLite it runs on
    /// a writer thread of its own, where its commits run inline and it answers the requests
    /// (one wake-up per commit fewer than GRDB's queue and the task pool); elsewhere it starts
    /// on this thread and leaves it at the database call.
    private func startDrain() {
        if let executor = writeExecutor {
            Task(executorPreference: executor) { await self.drain() }
        } else {
            Task.immediate { await self.drain() }
        }
    }

    /// Starts the drain after `wait` unless the next receipt has started it: on the request's
    /// own event loop, whose timers cost no thread of their own (or on the task pool, off one).
    private func startDrain(after wait: Duration) {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            let (seconds, attoseconds) = wait.components
            loop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) {
                self.waitIsOver()
            }
        } else {
            Task {
                try? await Task.sleep(for: wait)
                self.waitIsOver()
            }
        }
    }

    /// The receipt that waited commits now, unless the next one started its commit meanwhile.
    private func waitIsOver() {
        let start = pending.withLock { pending -> Bool in
            guard pending.waiting else { return false }
            pending.waiting = false
            pending.committing = true
            return true
        }
        if start { startDrain() }
    }

    /// Commits batch after batch until nothing is waiting.
    private func drain() async {
        while true {
            let batch = pending.withLock { pending in
                let batch = Array(pending.items.prefix(maxBatch))
                pending.items.removeFirst(batch.count)
                if batch.isEmpty { pending.committing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            await commit(batch)
        }
    }

    private func commit(_ batch: [(receipt: NewReceipt, waiter: Waiter)]) async {
        let now = Date()
        var attempt = 0
        while true {
            let began = ContinuousClock.now
            do {
                let outcomes = try await IntakeRepository(database, relay: relay).accept(batch.map(\.receipt), now: now)
                var created: [Submission] = []
                for (item, outcome) in zip(batch, outcomes) {
                    if case .created = outcome { created.append(item.receipt.submission(at: now)) }
                    item.waiter.resume(returning: outcome)
                }
                if !created.isEmpty { onCommitted(created) }
                return
            } catch {
                // Another process holds the write lock longer than the busy timeout, or a
                // connection broke: try a little longer before answering 503. Not a server that
                // gave no connection for a while (stopped, cut off): the requests would wait as
                // long again, and their clients give up before the 503.
                attempt += 1
                let waitedInVain =
                    if case SQLError.unreachable = error { ContinuousClock.now - began > .seconds(1) } else { false }
                if SQLError.isTransient(error), attempt < 3, !waitedInVain { continue }
                for item in batch { item.waiter.resume(throwing: error) }
                return
            }
        }
    }
}

extension NewReceipt {
    /// The validate-queue message for this receipt.
    func submission(at date: Date) -> Submission {
        var submission = Submission(
            id: id, accountID: accountID,
            evidence: ReceiptKind.evidence(kind, payload),
            orderID: orderID, productID: productID, submittedAt: date)
        submission.traceparent = traceparent
        return submission
    }
}
