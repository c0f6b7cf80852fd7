import Database
import Foundation
import HTTPClient
import Logging
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Delivers the notification outbox as signed webhooks: at least once, each with a stable
/// event id, retrying failures on a ``RetrySchedule``.
///
/// Each poll claims the due notifications (leasing them, so no other poll sends them while
/// they are in flight), POSTs each one's stored body to the webhook URL with Standard Webhooks
/// headers, and records the outcome: any 2xx marks it delivered; anything else, a non-2xx
/// status (410 Gone included) or a network error, schedules the next attempt, or after
/// ``RetrySchedule/maxAttempts`` marks it failed for good with a warning naming the event and
/// the receipt (never the body).
///
/// ```swift
/// let settings = try NotifierSettings(apps: nil)
/// let notifier = Notifier(
///     configuration: settings.configuration(), database: database, client: httpClient, logger: logger)
/// let group = ServiceGroup(services: [notifier], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// On graceful shutdown it stops claiming and returns once the deliveries in flight have
/// finished and been recorded. If the process dies instead, the leased notifications come
/// due again when the lease ends: a receiver may see an event twice, never zero times, and
/// dedupes on `webhook-id`.
public struct Notifier: Service {
    /// Where and how to deliver.
    public let configuration: Configuration
    let database: any SQLDatabase
    let client: CurlHTTPClient
    let logger: Logger
    /// Said once when the outbox cannot be read or written (a full disk, a server down), once when it can again.
    let pause: StagePause
    let now: @Sendable () -> Date
    let signer: WebhookSigner
    /// The other apps' endpoints and signers, by app id.
    let apps: [String: (url: String, signer: WebhookSigner)]
    /// Whether this process traces, read once (DeliverySpan.swift).
    let tracing = PipelineTracing.isEnabled

    /// Creates a notifier; nothing starts until ``run()`` or ``runOnce()``.
    /// - Parameters:
    ///   - configuration: The endpoint, secret, limits and retry schedule.
    ///   - database: The outbox.
    ///   - client: The HTTP client, shared with the rest of the process.
    ///   - logger: Where outcomes are logged.
    ///   - now: The wall clock, for the outbox and the `webhook-timestamp`; tests pin it.
    public init(
        configuration: Configuration, database: any SQLDatabase, client: CurlHTTPClient, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.database = database
        self.client = client
        self.logger = logger
        self.pause = StagePause(stage: "notifier", logger: logger)
        self.now = now
        self.signer = WebhookSigner(secret: configuration.secret, additionalSecrets: configuration.additionalSecrets)
        self.apps = configuration.apps.mapValues {
            (url: $0.url, signer: WebhookSigner(secret: $0.secret, additionalSecrets: $0.additionalSecrets))
        }
    }

    // MARK: - Service

    /// Polls and delivers until graceful shutdown or cancellation.
    ///
    /// A busy database (``SQLError/isTransient(_:)``) is logged and tried again at the
    /// next poll; one that cannot take the work (a full disk, a server down) pauses delivery
    /// until it can (``StagePause``). Without a webhook URL it logs once that delivery is disabled and waits for
    /// shutdown.
    /// - Throws: any other database error from claiming, after the deliveries in flight end.
    public func run() async throws {
        guard configuration.delivers else {
            logger.notice("IAP_WEBHOOK_URL is not set: webhooks are disabled and notifications stay in the outbox")
            try? await gracefulShutdown()
            return
        }
        logger.info(
            "delivering webhooks",
            metadata: [
                "endpoint": "\(configuration.webhookURL.map(Self.endpoint) ?? "none")",
                "apps": "\(apps.keys.sorted().map { "\($0) \(Self.endpoint(apps[$0]!.url))" })",
                "max_in_flight": "\(configuration.maxInFlight)",
                "max_attempts": "\(configuration.schedule.maxAttempts)",
            ])
        try await OutcomeRecorder.recording(into: database) { recorder in
            try await deliverUntilStopped(recorder: recorder)
        }
        logger.info("webhook delivery stopped")
    }

    /// The poll loop of ``run()``: returns once stopping and every delivery in flight has
    /// handed its outcome to `recorder`.
    private func deliverUntilStopped(recorder: OutcomeRecorder) async throws {
        let slots = DeliverySlots(capacity: configuration.maxInFlight)
        // Claim as many as there is room for; when the outbox has more, claim again as soon
        // as a quarter of the slots (or a batch) are free instead of waiting for the poll.
        let refill = min(configuration.batchSize, max(1, configuration.maxInFlight / 4))
        var lastFound = ContinuousClock.now - .seconds(3600)
        var lastLook = lastFound
        try await withThrowingDiscardingTaskGroup { group in
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let room = min(configuration.batchSize, slots.available)
                var backlog = false
                lastLook = .now
                if room > 0, let batch = try await claimUnlessBusy(limit: room) {
                    if !batch.isEmpty { lastFound = .now }
                    for notification in batch {
                        slots.take()
                        group.addTask {
                            _ = await deliver(notification, recorder: recorder) { slots.release() }
                        }
                    }
                    backlog = batch.count == room
                }
                if backlog {
                    await slots.waitForRoom(refill)
                } else if let doorbell = configuration.doorbell {
                    // The fulfiller rings as it commits; the idle pace finds what comes due later
                    // (a retry) and what another process's fulfiller wrote.
                    await cancelWhenGracefulShutdown { await doorbell.wait(atMost: configuration.pollInterval) }
                    // At most one look per active interval: at a high rate, the rings of several
                    // commits are one look, as a poll would be; a lone credit leaves at once.
                    let since = ContinuousClock.now - lastLook
                    if since < configuration.activePollInterval {
                        try? await cancelWhenGracefulShutdown {
                            try await Task.sleep(for: configuration.activePollInterval - since)
                        }
                    }
                } else {
                    // Traffic comes in batches (the fulfiller commits every few ms): stay quick
                    // for a second after the last find, then fall back to the idle pace.
                    let active = ContinuousClock.now - lastFound < .seconds(1)
                    let pause = active ? configuration.activePollInterval : configuration.pollInterval
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
                }
            }
        }
    }

    /// Claims and delivers one batch of due notifications, concurrently up to
    /// ``Configuration/maxInFlight``, and returns once every outcome is recorded.
    ///
    /// For tests and one-shot commands; ``run()`` is the long-running form.
    /// - Returns: How many notifications were attempted; 0 when none was due or delivery is
    ///   disabled.
    /// - Throws: a database error from claiming (a busy database included); outcomes that
    ///   cannot be recorded are logged, and the lease brings those notifications back.
    public func runOnce() async throws -> Int {
        guard configuration.delivers else { return 0 }
        let batch = try await claim(limit: configuration.batchSize)
        let maxInFlight = configuration.maxInFlight
        await OutcomeRecorder.recording(into: database) { recorder in
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for notification in batch {
                    if running >= maxInFlight {
                        await group.next()
                        running -= 1
                    }
                    group.addTask { _ = await deliver(notification, recorder: recorder) }
                    running += 1
                }
            }
        }
        return batch.count
    }

    /// Scheme, host and port of the webhook URL, for logs: no credentials, no path secrets.
    private static func endpoint(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return "?" }
        return "\(components.scheme ?? "http")://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    // MARK: - Claiming

    private func claim(limit: Int) async throws -> [OutboxWebhook] {
        let now = self.now()
        let leaseUntil = now.addingTimeInterval(configuration.lease.timeInterval)
        return try await OutboxRepository(database).claimDueWebhooks(now: now, limit: limit, leaseUntil: leaseUntil)
    }

    /// ``claim(limit:)`` for the poll loop: nil after a transient failure, which is logged, or
    /// while the database cannot take the work (``StagePause``: the loop waits, then resumes).
    private func claimUnlessBusy(limit: Int) async throws -> [OutboxWebhook]? {
        do {
            let claimed = try await claim(limit: limit)
            pause.succeeded()
            return claimed
        } catch  where SQLError.outage(error) != nil {
            pause.failed(reason: SQLError.outage(error) ?? "", error: error)
            return nil
        } catch  where SQLError.isTransient(error) {
            logger.warning("outbox busy, trying again at the next poll", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
