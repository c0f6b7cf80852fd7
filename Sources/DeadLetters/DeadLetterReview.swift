import Broker
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// What operators do with dead letters, for the `iap dlq` commands and the console alike:
/// list and group them, look at one, replay or discard one or a group.
///
/// A replay confirms first, then removes, so that no message is lost or doubled: the letter
/// is marked `replaying` and its receipt reopened in one transaction, the original body is
/// published back to the work queue it died in with a publisher confirm, and only then is
/// the letter marked `replayed`. A crash in between leaves it `replaying`, and replaying it
/// again is harmless: the pipeline credits each Apple transaction once.
///
/// ```swift
/// let review = DeadLetterReview(store: DeadLetterRepository(database), connection: connection, topology: topology)
/// let summary = await review.replay(DeadLetterFilter(reason: "attempts_exhausted: timeout"), by: "alice")
/// ```
public struct DeadLetterReview: Sendable {
    /// A header on replayed messages: who replayed them.
    public static let replayedByHeader = "x-iap-replayed-by"
    /// A header on replayed messages: the archived letter they come from.
    public static let replayOfHeader = "x-iap-replay-of"

    let store: DeadLetterRepository
    let connection: AMQPConnection
    let topology: PipelineTopology
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - connection: a running connection; replays publish on it, the console reads queue depths.
    ///   - now: the clock, for age filters and the times recorded.
    public init(
        store: DeadLetterRepository, connection: AMQPConnection, topology: PipelineTopology,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.connection = connection
        self.topology = topology
        self.now = now
    }

    // MARK: - Reading

    /// The open letters `filter` selects, grouped by reason.
    public func groups(_ filter: DeadLetterFilter = .init()) async throws -> [DeadLetterGroup] {
        try await store.deadLetterGroups(filter.query(now: now()))
    }

    /// The open letters `filter` selects, newest first.
    public func letters(_ filter: DeadLetterFilter = .init(), limit: Int = 500) async throws -> [DeadLetter] {
        try await store.deadLetters(filter.query(now: now()), limit: limit)
    }

    /// One letter, whatever its status.
    ///
    /// - Throws: ``DeadLetterError`` (`unknown_dead_letter`) when there is none.
    public func letter(id: String) async throws -> DeadLetter {
        guard let letter = try await store.deadLetter(id: id) else {
            throw DeadLetterError(.unknownLetter, "no dead letter with id \(id)")
        }
        return letter
    }

    /// Messages waiting in each of the pipeline's work and dead-letter queues; nil where the
    /// broker did not answer.
    public func queueDepths(within limit: Duration = .seconds(2)) async -> [(queue: String, messages: Int?)] {
        var seen: Set<String> = []
        let queues = ([topology.validateQueue, topology.fulfilQueue, topology.deadQueue] + topology.retryQueues)
            .filter { seen.insert($0).inserted }
        // Asked together, and bounded: with the broker down (when the console is needed
        // most) the page says so at once. Unstructured tasks, so that a question the
        // connection holds until it reconnects does not hold the page too.
        let (stream, continuation) = AsyncStream.makeStream(of: (String, Int?).self)
        for queue in queues {
            Task { [connection] in continuation.yield((queue, try? await connection.queueStatus(queue).messages)) }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.finish()
        }
        var answers: [String: Int?] = [:]
        for await (queue, messages) in stream {
            answers[queue] = messages
            if answers.count == queues.count { break }
        }
        timer.cancel()
        continuation.finish()
        return queues.map { ($0, answers[$0] ?? nil) }
    }

    // MARK: - Replay

    /// Replays one letter (see the type's summary for the steps).
    ///
    /// - Throws: ``DeadLetterError`` for an unknown or resolved letter (nothing changed), or
    ///   the broker's error when it refused the publish (the letter waits as before).
    @discardableResult
    public func replay(id: String, by operatorName: String) async throws -> DeadLetter {
        let letter = try await store.beginReplay(id: id, by: operatorName, now: now())
        do {
            try await connection.publish(replayMessage(letter, by: operatorName))
        } catch {
            try? await store.abortReplay(id: id, now: now())
            throw error
        }
        try await store.finishReplay(id: id, by: operatorName, now: now())
        return try await self.letter(id: id)
    }

    /// Replays every open letter `filter` selects, oldest first, in chunks of
    /// ``bulkChunk``: each chunk is begun in one transaction, published with its confirms in
    /// flight together, and finished (or, where the broker refused, undone) in one more.
    ///
    /// - Parameter progress: called after each chunk.
    public func replay(
        _ filter: DeadLetterFilter, by operatorName: String, progress: (BulkProgress) -> Void = { _ in }
    ) async throws -> BulkSummary {
        let ids = try await store.deadLetterIDs(filter.query(now: now()))
        var summary = BulkSummary()
        var handled = 0
        while handled < ids.count {
            let chunk = Array(ids[handled..<min(handled + Self.bulkChunk, ids.count)])
            let started = try await store.beginReplays(ids: chunk, by: operatorName, now: now())
            for refused in started.refused { count(refused.error, id: refused.id, in: &summary) }
            let results = await connection.publish(started.begun.map { replayMessage($0, by: operatorName) })
            var confirmed: [String] = []
            var refusedByBroker: [String] = []
            for (letter, result) in zip(started.begun, results) {
                switch result {
                case .success:
                    confirmed.append(letter.id)
                case .failure(let error):
                    refusedByBroker.append(letter.id)
                    summary.failed += 1
                    summary.failures.append(.init(id: letter.id, error: "the broker refused the publish: \(error)"))
                }
            }
            try await store.finishReplays(ids: confirmed, by: operatorName, now: now())
            try await store.abortReplays(ids: refusedByBroker, now: now())
            summary.done += confirmed.count
            handled += chunk.count
            progress(BulkProgress(handled: handled, total: ids.count, summary: summary))
        }
        return summary
    }

    /// Letters a bulk replay handles per transaction and publish batch.
    public static let bulkChunk = 100

    /// The message a replay publishes: the original body, to the work queue the letter
    /// died in, with fresh attempt headers and who replayed it.
    func replayMessage(_ letter: DeadLetter, by operatorName: String) -> OutgoingMessage {
        let headers: [String: AMQPValue] = [
            MessageHeader.attempts: .int(0),
            Self.replayedByHeader: .string(operatorName),
            Self.replayOfHeader: .string(letter.id),
        ]
        return OutgoingMessage(
            exchange: topology.workExchange, routingKey: routingKey(for: letter), body: Array(letter.body),
            properties: MessageProperties(messageID: letter.receiptID, timestamp: now(), headers: headers))
    }

    /// `fulfil` for a verdict that died in the fulfil queue, else `validate`.
    public func routingKey(for letter: DeadLetter) -> String {
        letter.sourceQueue == topology.fulfilQueue ? PipelineTopology.fulfilKey : PipelineTopology.validateKey
    }

    // MARK: - Discard

    /// Discards one letter; its receipt's reason then says who and why.
    ///
    /// - Throws: ``DeadLetterError`` for an unknown or resolved letter or an empty reason.
    @discardableResult
    public func discard(id: String, by operatorName: String, reason: String) async throws -> DeadLetter {
        try await store.discard(id: id, by: operatorName, reason: reason, now: now())
    }

    /// Discards every open letter `filter` selects, ``bulkChunk`` letters per transaction.
    ///
    /// - Parameter progress: called after each chunk.
    /// - Throws: ``DeadLetterError`` for an empty reason (nothing changed), or a database error.
    public func discard(
        _ filter: DeadLetterFilter, by operatorName: String, reason: String, progress: (BulkProgress) -> Void = { _ in }
    ) async throws -> BulkSummary {
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw DeadLetterError(.reasonRequired, "a discard needs a reason")
        }
        let ids = try await store.deadLetterIDs(filter.query(now: now()))
        var summary = BulkSummary()
        var handled = 0
        while handled < ids.count {
            let chunk = Array(ids[handled..<min(handled + Self.bulkChunk, ids.count)])
            let done = try await store.discard(ids: chunk, by: operatorName, reason: reason, now: now())
            summary.done += done.discarded.count
            for refused in done.refused { count(refused.error, id: refused.id, in: &summary) }
            handled += chunk.count
            progress(BulkProgress(handled: handled, total: ids.count, summary: summary))
        }
        return summary
    }

    private func count(_ error: any Error, id: String, in summary: inout BulkSummary) {
        if let error = error as? DeadLetterError, error.code == .alreadyResolved || error.code == .unknownLetter {
            summary.skipped += 1
        } else {
            summary.failed += 1
            summary.failures.append(.init(id: id, error: "\(error)"))
        }
    }
}

extension PipelineTopology {
    /// The retry tiers' queue names.
    var retryQueues: [String] {
        allQueues.filter { $0.hasPrefix(validateQueue + ".retry.") }
    }
}
