import Broker
import Database
import Foundation
import Logging
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter
import Synchronization

/// Publishes committed receipts to the validate queue, and marks them published once
/// the broker confirms.
///
/// Two paths lead here. The fast one: the group committer hands over each commit's new
/// receipts, which go straight to the broker connection's thread; the confirms come back on
/// that thread, so a receipt wakes no task of the relay's until its mark. The sure one: a
/// sweep that reads every receipt the broker has not yet confirmed, which covers a crash
/// between commit and publish, a broker that was down, and a restart of the intake. A
/// receipt may so be published twice; the pipeline is idempotent downstream, and losing one
/// is not an option.
///
/// Several intakes may share one database: each row names the relay of the intake that
/// committed it (``id``), and a sweep publishes only its own relay's rows, and those of a
/// relay that has been silent for ``Configuration/lease`` (crashed, or gone), which it first
/// adopts, so that one relay's slow mark is never another's second publish.
public final class Relay: Service, Sendable {
    public struct Configuration: Sendable {
        /// How often the sweep looks for unconfirmed receipts.
        public var sweepInterval: Duration
        /// Receipts younger than this are left to the fast path.
        public var sweepGrace: Duration
        public var sweepBatch: Int
        /// How long committed receipts may wait for company before they are published, so
        /// that below saturation several share a message (``MessagePack``), and downstream
        /// a delivery, a verdict message and an ack; a pack goes as soon as it is full, so
        /// under load none waits. Zero: each commit's receipts are published as it ends
        /// (`IAP_RELAY_PACK_WAIT_MS`).
        public var packWait: Duration
        /// How long a relay may go without saying it is alive (each sweep does) before another
        /// adopts its unpublished rows: the longest a crashed intake's receipts wait. Clocks of
        /// intakes sharing a database must agree to well within it (a skew past it only
        /// publishes a receipt twice).
        public var lease: Duration

        public init(
            sweepInterval: Duration = .seconds(2), sweepGrace: Duration = .seconds(5), sweepBatch: Int = 500,
            packWait: Duration = .zero, lease: Duration = .seconds(10)
        ) {
            self.sweepInterval = sweepInterval
            self.sweepGrace = sweepGrace
            self.sweepBatch = sweepBatch
            self.packWait = max(.zero, packWait)
            self.lease = max(lease, sweepInterval * 3)
        }
    }

    /// This relay's name in the database: the host, the process and a random part, so that an
    /// operator can tell whose rows wait, and a restarted process is a new relay.
    public let id: String
    private let connection: AMQPConnection
    private let database: any SQLDatabase
    private let topology: PipelineTopology
    private let configuration: Configuration
    private let logger: Logger
    /// Publishes on the fast path not yet settled, and who waits for none to be left (the
    /// marks, at shutdown: what was committed is published before the intake exits).
    private let inFlight = InFlight()
    /// Ids the broker confirmed on the fast path, waiting to be marked published: all that
    /// gathered while the previous mark committed go in one transaction, in a task of their
    /// own, so that publishing never waits for one (and on SQLite the group commit goes
    /// ahead of them). A crash before the mark only publishes those receipts again.
    private let confirmed = BatchBuffer<String>()
    /// Ids on the fast path, from hand-over to mark: the sweep leaves them alone. Under load
    /// a publish and its mark can take longer than the grace, and the sweep would publish
    /// them a second time (each duplicate one more verification asked of Apple).
    private let inHand = Mutex<Set<String>>([])
    /// Committed receipts waiting for company (``Configuration/packWait``).
    private let waiting = BatchBuffer<Submission>()
    /// The sweep's wait on a database that cannot take its writes: one line each way, not one
    /// a sweep.
    private let pause: StagePause
    /// `iap_relay_blocked`: 1 while the broker blocks publishing.
    private let blockedGauge = PipelineMetrics.relayBlocked()
    /// Whether this process traces (read once): the publish spans (IntakeTracing.swift).
    private let tracing = PipelineTracing.isEnabled

    public init(
        connection: AMQPConnection, database: any SQLDatabase, topology: PipelineTopology,
        configuration: Configuration = .init(), logger: Logger
    ) {
        self.id = "\(Self.hostName().prefix(64))/\(getpid())/\(UUID().uuidString.prefix(8))"
        self.connection = connection
        self.database = database
        self.topology = topology
        self.configuration = configuration
        self.logger = logger
        self.pause = StagePause(stage: "relay", logger: logger)
    }

    /// Hands newly committed receipts to the fast path: published at once, on the caller's
    /// thread up to the connection's mailbox, or after waiting for company
    /// (``Configuration/packWait``); the confirms are gathered for the marks.
    func enqueue(_ submissions: [Submission]) {
        guard !submissions.isEmpty else { return }
        inHand.withLock { $0.formUnion(submissions.lazy.map(\.id)) }
        guard configuration.packWait > .zero else { return publishNow(submissions) }
        waiting.append(contentsOf: submissions)
    }

    /// Publishes on the fast path, one piece of ``inFlight`` until the broker answered.
    private func publishNow(_ submissions: [Submission]) {
        // A broker that blocks publishing (a resource alarm) would hold them unconfirmed, for as
        // long as the alarm lasts and as many as come: they wait in the database instead, for
        // the sweep once it clears, as when the broker is down.
        guard !blockedNow() else { return release(submissions.map(\.id)) }
        inFlight.begin()
        let (traced, spans) = IntakeTracing.startPublishing(
            submissions, enabled: tracing, exchange: topology.workExchange, routingKey: PipelineTopology.validateKey)
        connection.publishSubmissions(traced, topology: topology, type: "submission") { confirmed, failed in
            IntakeTracing.endPublishing(spans, failed: failed)
            self.notPublished(failed)
            // What the broker did not confirm is the sweep's again.
            self.release(failed.map(\.id))
            self.confirmed.append(contentsOf: confirmed)
            self.inFlight.end()
        }
    }

    public func run() async throws {
        // Cancelled rather than shut down (another service of the group failed, say the HTTP
        // port was taken): the marks must end too, or the process never exits.
        await withTaskCancellationHandler {
            await drainUntilShutdown()
        } onCancel: {
            self.waiting.finish()
            self.confirmed.finish()
        }
        // Every mark is in: what is left unpublished (a broker down) another relay may adopt at
        // once. Not when cancelled (the shutdown's grace is over): its lease ends soon enough.
        guard !Task.isCancelled else { return }
        do {
            try await RelayRepository(database).leave(id, now: Date())
        } catch {
            logger.warning("relay cannot say it left", metadata: ["relay": "\(id)", "error": "\(error)"])
        }
    }

    private func drainUntilShutdown() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if configuration.packWait > .zero {
                    inFlight.begin()
                    group.addTask { await self.publishPacks() }
                }
                group.addTask {
                    // Nothing waits on a mark: gather them for a while, one transaction for many.
                    while let ids = try? await self.confirmed.next(max: 10_000, linger: .milliseconds(50)) {
                        await self.markPublished(ids)
                        self.release(ids)
                    }
                }
                group.addTask {
                    while !Task.isShuttingDownGracefully, !Task.isCancelled {
                        await self.sweep()
                        // Wakes at shutdown too, so that the intake exits at once.
                        try? await cancelWhenGracefulShutdown {
                            try await Task.sleep(for: self.configuration.sweepInterval)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            // What is in flight was committed and its senders told so: it is published (or
            // left to the next start's sweep) and marked before the marks end.
            Task {
                self.waiting.finish()
                await self.inFlight.settled()
                self.confirmed.finish()
            }
        }
    }

    /// Publishes what waited for company, a pack at a time, until shutdown has taken the
    /// last. Itself a piece of ``inFlight`` meanwhile, so that shutdown waits for what still
    /// waits. (A commit that ends after that is published by the next start's sweep.)
    private func publishPacks() async {
        // At shutdown the wait is cut short: what is left goes at once.
        while let pack = try? await cancelWhenGracefulShutdown({
            try await self.waiting.next(max: MessagePack.limit, linger: self.configuration.packWait)
        }) {
            publishNow(pack)
        }
        inFlight.end()
    }

    /// Says this relay is alive, adopts the rows of relays that are not (or of none), and
    /// publishes every one of its rows older than the grace period that the broker has not
    /// confirmed.
    func sweep() async {
        let now = Date()
        let cutoff = now.addingTimeInterval(-configuration.sweepGrace.seconds)
        if !Task.isShuttingDownGracefully { await beatAndAdopt(now: now) }
        while !blockedNow(), connection.isConnected {
            let batch: [Submission]
            do {
                let limit = configuration.sweepBatch
                let inHand = self.inHand.withLock { $0 }
                batch = try await IntakeRepository(database, relay: id).unpublished(limit: limit)
                    .filter { $0.submittedAt < cutoff && !inHand.contains($0.id) }
            } catch {
                databaseFailed(error, "relay sweep cannot read receipts")
                return
            }
            guard !batch.isEmpty else { return }
            logger.info("relay publishing unconfirmed receipts", metadata: ["count": "\(batch.count)"])
            // Marked before the next read, which would otherwise find them again.
            let published = await publish(batch)
            await markPublished(published)
            guard published.count == batch.count, batch.count == configuration.sweepBatch else { return }
        }
    }

    /// Says this relay is alive, and adopts the unpublished rows of relays that are not.
    private func beatAndAdopt(now: Date) async {
        do {
            let relays = RelayRepository(database)
            try await relays.beat(id, now: now)
            let adopted = try await relays.adopt(
                by: id, now: now, grace: configuration.sweepGrace.seconds, lease: configuration.lease.seconds,
                limit: configuration.sweepBatch)
            if adopted > 0 {
                logger.info(
                    "relay adopted rows of a relay gone silent", metadata: ["relay": "\(id)", "count": "\(adopted)"])
            }
            // The beat is a write (reads alone may go through on a full disk): the relay works again.
            pause.succeeded()
        } catch {
            databaseFailed(error, "relay cannot say it is alive")
        }
    }

    /// The host's name as the kernel has it: no resolver asked (Foundation's `hostName` asks
    /// DNS, which can take seconds on a host without one).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "host" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the broker blocks publishing now; kept in `iap_relay_blocked`.
    private func blockedNow() -> Bool {
        let blocked = connection.isBlocked
        blockedGauge.record(blocked ? 1 : 0)
        return blocked
    }

    /// Gives ids back to the sweep: marked, or not published on the fast path.
    private func release(_ ids: [String]) {
        inHand.withLock { held in
            for id in ids { held.remove(id) }
        }
    }

    /// Publishes with confirms; returns the ids the broker confirmed.
    func publish(_ submissions: [Submission]) async -> [String] {
        let (traced, spans) = IntakeTracing.startPublishing(
            submissions, enabled: tracing, exchange: topology.workExchange, routingKey: PipelineTopology.validateKey)
        let (confirmed, failed) = await connection.publishSubmissions(traced, topology: topology, type: "submission")
        IntakeTracing.endPublishing(spans, failed: failed)
        notPublished(failed)
        return confirmed
    }

    private func notPublished(_ failed: [(id: String, error: PublishError)]) {
        for (id, error) in failed {
            logger.debug(
                "receipt not yet published; the sweep retries", metadata: ["receipt_id": "\(id)", "error": "\(error)"])
        }
    }

    /// Records confirmed ids as published, in one transaction.
    private func markPublished(_ ids: [String]) async {
        guard !ids.isEmpty else { return }
        do {
            try await IntakeRepository(database).markPublished(ids, at: Date())
        } catch {
            // They stay unpublished in the database and are sent again: a duplicate, not a loss.
            // (Not a pause: the beat says when the relay works again, and a mark can fail while
            // beats go through, on a disk full but for the pages they rewrite.)
            logger.warning("cannot mark receipts published", metadata: ["error": "\(error)"])
        }
    }

    /// A database that cannot take the sweep's work pauses the relay (``StagePause``) until a
    /// beat goes through; anything else is a warning.
    private func databaseFailed(_ error: any Error, _ message: Logger.Message) {
        if let reason = SQLError.outage(error) {
            pause.failed(reason: reason, error: error)
        } else {
            logger.warning(message, metadata: ["relay": "\(id)", "error": "\(error)"])
        }
    }
}
