import Broker
import Database
import Foundation
import Logging
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter
import Tracing

/// The fulfiller stage: owns the accounts. Applies verdicts in batches, each batch one
/// database transaction (ledger, balances, entitlements, receipt status, outbox rows), and
/// acks the batch with one multiple-ack after the commit. Also archives every dead letter
/// from the dead-letter queue, marking its receipt dead (see `Fulfiller+Archive.swift`). App Store Server
/// Notifications travel the same way: a verdict (or dead letter) whose id is a
/// notification's applies to that notification (see ``SettlementRepository/apply(_:catalog:now:)``).
///
/// Run one per SQLite file; on PostgreSQL any number share the queue (a batch's rows are
/// locked in its transaction).
public struct Fulfiller: Service {
    public struct Configuration: Sendable {
        public var batchSize: Int
        public var prefetch: Int
        /// How long a batch that is not full waits for more verdicts before it is
        /// committed: below saturation, one transaction per verdict would write the same
        /// pages again for each (nobody waits on a credit but the webhook).
        /// `IAP_FULFILLER_COMMIT_WAIT_MS`; 50 ms took a quarter off the stages' CPU per
        /// receipt at 100 receipts/s against 10 (BENCHMARKS.md, issue 29).
        public var linger: Duration

        /// Rung after each commit, for the notifier of the same process (`iap up`): the
        /// webhooks the commit wrote leave without waiting for its next poll.
        public var outboxDoorbell: Doorbell?

        public init(batchSize: Int = 256, prefetch: Int = 1024, linger: Duration = .milliseconds(50)) {
            self.batchSize = max(1, batchSize)
            self.prefetch = max(prefetch, self.batchSize)
            self.linger = max(.zero, linger)
        }
    }

    let connection: AMQPConnection
    let topology: PipelineTopology
    let settlement: SettlementRepository
    let deadLetters: DeadLetterRepository
    /// Each app's catalog: an account is credited by its app's (issue 30).
    let catalogs: AppCatalogs
    var catalog: Catalog { catalogs.defaultCatalog }
    let configuration: Configuration
    let logger: Logger
    /// Said once when the database stops taking verdicts (a full disk, a server down), once when it takes them again.
    let pause: StagePause
    /// Whether this process traces, read once, and the database's name for its spans (SettleSpans.swift).
    let tracing = PipelineTracing.isEnabled
    let system: DatabaseSystemName

    public init(
        connection: AMQPConnection, topology: PipelineTopology, settlement: SettlementRepository,
        deadLetters: DeadLetterRepository, catalog: Catalog, otherApps: [String: Catalog] = [:],
        configuration: Configuration = .init(), logger: Logger
    ) {
        self.connection = connection
        self.topology = topology
        self.settlement = settlement
        self.deadLetters = deadLetters
        self.catalogs = AppCatalogs(catalog, others: otherApps)
        self.configuration = configuration
        self.logger = logger
        self.pause = StagePause(stage: "fulfiller", logger: logger)
        self.system = settlement.databaseSystem
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            // On SQLite, on a writer thread of its own: each batch's transaction runs there, inline.
            group.addTask(executorPreference: settlement.makeWriteExecutor()) {
                try await consume(topology.fulfilQueue, decode: Self.verdict)
            }
            group.addTask { try await archiveDeadLetters() }
        }
    }

    /// Consumes `queue` in batches until graceful shutdown; the batch in hand is committed
    /// and acked before returning.
    private func consume(_ queue: String, decode: @escaping @Sendable (MessagePart) -> Verdict?) async throws {
        // Deliveries land in the batch buffer from the connection's thread: no task between.
        let consumer = connection.consumeInBatches(queue: queue, prefetch: configuration.prefetch)
        try await consumer.eachBatch(max: configuration.batchSize, linger: configuration.linger) { batch in
            await apply(batch, decode: decode)
        }
    }

    /// Commits one batch, then settles it: poison and refused verdicts are dead-lettered
    /// one by one, the rest acked together.
    func apply(_ batch: [Delivery], decode: (MessagePart) -> Verdict?) async {
        let started = DefaultTracerClock.now
        var verdicts: [Verdict] = []
        var carried: [(delivery: Delivery, part: MessagePart)] = []
        // Nacked without requeue, for the broker to dead-letter: a pack whose parts cannot be told apart.
        var rejected: [Delivery] = []
        // Dead-lettered by us, each alone and with its reason: what cannot be read, and what the
        // engine refused (the other verdicts of its pack are applied).
        var refused: [(delivery: Delivery, part: MessagePart, reason: String)] = []
        for delivery in batch {
            guard let parts = delivery.parts else {
                logger.warning("unreadable pack of verdicts, dead-lettering it")
                rejected.append(delivery)
                continue
            }
            for part in parts {
                if let verdict = decode(part) {
                    verdicts.append(verdict)
                    carried.append((delivery, part))
                    continue
                }
                logger.warning(
                    "unparseable message, dead-lettering it",
                    metadata: ["receipt_id": "\(part.properties.messageID ?? "unknown")"])
                refused.append((delivery, part, "unparseable_message"))
            }
        }
        let traced = await SettleSpans.start(
            carried.map(\.part), messages: batch.count, verdicts: &verdicts, queue: topology.fulfilQueue,
            system: system, enabled: tracing,
            startedAt: started)
        let results = await commit(verdicts)
        traced?.committed(results)
        defer { traced?.end() }
        guard let results else {
            // Cancelled past the shutdown grace period with nothing committed: the batch goes
            // back to the queue whole.
            for delivery in batch { delivery.nack(requeue: true) }
            return
        }
        for ((delivery, part), (verdict, result)) in zip(carried, zip(verdicts, results)) {
            switch result {
            case .invalid(let receiptID, let reason):
                logger.error("verdict refused", metadata: ["receipt_id": "\(receiptID)", "reason": "\(reason)"])
                refused.append((delivery, part, "refused: \(reason)"))
            case .applied(let receiptID, let status, let reason):
                Self.record(status, of: part, account: verdict.accountID)
                logger.debug(
                    "receipt \(status.rawValue)",
                    metadata: ["receipt_id": "\(receiptID)", "reason": "\(reason ?? "")"])
            case .notificationApplied(let notificationID, let status, let reason):
                logger.debug(
                    "notification \(status.rawValue)",
                    metadata: ["notification_id": "\(notificationID)", "reason": "\(reason ?? "")"])
            case .subscriptionCheckApplied(let checkID, let status, let outcome):
                logger.info(
                    "subscription check \(status)",
                    metadata: ["check_id": "\(checkID)", "outcome": "\(outcome ?? "")"])
            case .unknownReceipt(let receiptID):
                logger.warning("verdict for an unknown receipt", metadata: ["receipt_id": "\(receiptID)"])
            case .alreadyFinal, .notificationAlreadyFinal, .unknownOutcome:
                break
            }
        }
        // A letter the broker would not take: its message goes back to the queue to be tried
        // again (its applied verdicts apply once); the delivery limit ends a hopeless one in the
        // dead-letter queue, a pack as a letter per receipt.
        var requeued: [UInt64: Delivery] = [:]
        for delivery in await deadLetter(refused) { requeued[delivery.deliveryTag] = delivery }
        for delivery in rejected { delivery.nack(requeue: false) }
        for delivery in requeued.values { delivery.nack(requeue: true) }
        let unacked = Set(rejected.map(\.deliveryTag)).union(requeued.keys)
        // One multiple-ack settles every delivery of the batch that was not dead-lettered.
        if let last = batch.last(where: { !unacked.contains($0.deliveryTag) }) {
            last.ack(multiple: true)
        }
    }

    /// Sends each verdict the engine refused (or could not read) to the dead-letter queue
    /// alone, with its reason, so that the archive, the receipt's status and the operators
    /// name the problem.
    /// - Returns: the deliveries of those the broker did not confirm.
    private func deadLetter(_ refused: [(delivery: Delivery, part: MessagePart, reason: String)]) async -> [Delivery] {
        guard !refused.isEmpty else { return [] }
        let letters = refused.map { _, part, reason in
            OutgoingMessage.deadLetter(
                body: part.body, properties: part.properties, to: topology.deadExchange, from: topology.fulfilQueue,
                reason: reason, attempts: Int(part.properties.headers[MessageHeader.attempts]?.intValue ?? 0))
        }
        let published = await connection.publish(letters)
        return zip(refused, published).compactMap { refused, result in
            (try? result.get()) == nil ? refused.delivery : nil
        }
    }

    /// Applies verdicts, retrying until the database takes them: a batch is never acked
    /// before it is committed. A verdict that cannot be applied for what it holds comes back
    /// `invalid` (the store isolates it, ``SettlementRepository/apply(_:catalog:now:)``) and is
    /// dead-lettered; only the database's own failures (busy, unreachable, full) are retried.
    /// - Returns: nil when cancelled before a commit succeeded.
    func commit(_ verdicts: [Verdict]) async -> [VerdictResult]? {
        guard !verdicts.isEmpty else { return [] }
        var failures = 0
        while !Task.isCancelled {
            do {
                let started = ContinuousClock.now
                let results = try await settlement.apply(verdicts, catalogs: catalogs, now: Date())
                PipelineMetrics.fulfillerCommitDuration.record(ContinuousClock.now - started)
                configuration.outboxDoorbell?.ring()
                pause.succeeded()
                return results
            } catch {
                if let reason = SQLError.outage(error) {
                    pause.failed(reason: reason, error: error)
                } else {
                    logger.error(
                        "cannot commit verdicts, retrying",
                        metadata: ["error": "\(error)", "count": "\(verdicts.count)"])
                }
                failures += 1
                try? await Task.sleep(for: Self.databaseBackoff.delay(afterFailures: failures))
            }
        }
        return nil
    }

    /// The wait before a batch is tried again on a database that failed it (busy,
    /// unreachable, full): 50 ms, doubling, at most 5 s.
    static let databaseBackoff = Backoff(base: .milliseconds(50), cap: .seconds(5))

    /// Counts a credit, under the app of the account that posted it, and its end-to-end
    /// latency, from the intake's commit.
    private static func record(_ status: ReceiptStatus, of part: MessagePart, account: String) {
        guard status == .credited else { return }
        PipelineMetrics.credited(app: AppScope.appID(of: account)).increment()
        if let submitted = part.properties.headers[MessageHeader.submittedAt]?.intValue {
            let elapsed = Date().timeIntervalSince1970 * 1000 - Double(submitted)
            PipelineMetrics.endToEndDuration.record(.milliseconds(max(0, elapsed)))
        }
    }

    // MARK: - Decoding

    static func verdict(_ part: MessagePart) -> Verdict? {
        Verdict.decode(part.body)
    }
}
