import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// Writes delivery outcomes to the outbox in batches: every outcome that arrived while the
/// previous batch was committing, plus those arriving within a short linger, go in one
/// transaction. The notifier so makes a few commits per second, not one per webhook.
///
/// Nothing is lost by batching: each delivery waits until its outcome is committed (or the
/// commit failed, when its lease brings the notification back, to be sent again with the
/// same `webhook-id`).
final class OutcomeRecorder: Sendable {
    private typealias Waiter = CheckedContinuation<Bool, any Error>

    private let database: any SQLDatabase
    private let maxBatch: Int
    private let linger: Duration
    private let pending = BatchBuffer<(record: DeliveryRecord, waiter: Waiter)>()

    /// - Parameters:
    ///   - maxBatch: the most outcomes in one transaction.
    ///   - linger: how long a batch smaller than `maxBatch` waits for more before committing.
    init(database: any SQLDatabase, maxBatch: Int = 512, linger: Duration = .milliseconds(2)) {
        self.database = database
        self.maxBatch = maxBatch
        self.linger = linger
    }

    /// Runs `body` with a recorder whose batches commit on a writer thread of their own
    /// (``Store/SQLDatabase/makeWriteExecutor()``: on SQLite each batch's transaction runs there,
    /// inline); returns once every outcome handed to it is recorded.
    static func recording<T>(
        into database: any SQLDatabase, _ body: (OutcomeRecorder) async throws -> T
    ) async rethrows -> T {
        let recorder = OutcomeRecorder(database: database)
        let committing = Task(executorPreference: database.makeWriteExecutor()) { await recorder.run() }
        let result: T
        do {
            result = try await body(recorder)
        } catch {
            recorder.finish()
            await committing.value
            throw error
        }
        recorder.finish()
        await committing.value
        return result
    }

    /// Records `record` with the others of its batch; returns once committed.
    /// - Returns: what ``Store/OutboxRepository/recordDeliveries(_:)`` said of this record.
    /// - Throws: the batch's database error; nothing of the batch was recorded.
    func record(_ record: DeliveryRecord) async throws -> Bool {
        try await withCheckedThrowingContinuation { waiter in
            pending.append((record, waiter))
        }
    }

    /// Commits batches until ``finish()`` is called and every outcome is recorded.
    func run() async {
        while let batch = try? await pending.next(max: maxBatch, linger: linger) {
            let records = batch.map(\.record)
            do {
                let results = try await OutboxRepository(database).recordDeliveries(records)
                for (item, result) in zip(batch, results) { item.waiter.resume(returning: result) }
            } catch {
                for item in batch { item.waiter.resume(throwing: error) }
            }
        }
    }

    /// No more outcomes will come: ``run()`` records what is left, then returns.
    func finish() {
        pending.finish()
    }
}
