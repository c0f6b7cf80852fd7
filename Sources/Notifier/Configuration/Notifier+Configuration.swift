import Foundation
import PipelineCore

extension Notifier {
    /// Where and how the notifier delivers.
    ///
    /// ```swift
    /// var configuration = Notifier.Configuration(webhookURL: "https://backend.example/iap/webhooks", secret: secret)
    /// configuration.maxInFlight = 128
    /// ```
    public struct Configuration: Sendable {
        /// The backend's webhook endpoint (`IAP_WEBHOOK_URL`); nil disables delivery: the
        /// notifier says so once at start and notifications stay pending until it is set.
        public var webhookURL: String?
        /// The signing secret (`IAP_WEBHOOK_SECRET`).
        public var secret: WebhookSecret
        /// The other secret of a rotation (the second in `IAP_WEBHOOK_SECRET`): deliveries
        /// are signed with both until the rotation ends.
        public var additionalSecrets: [WebhookSecret] = []
        /// The webhooks of the apps other than the default app (`IAP_APPS`), by app id: an
        /// account stored `<app>/<account>` is told at its app's URL, signed with its secret.
        /// An app without one keeps its notifications pending, as the default app does
        /// without ``webhookURL``.
        public var apps: [String: AppWebhook] = [:]
        /// How long to wait before looking again when no notification was due.
        public var pollInterval: Duration
        /// How long to wait before looking again while traffic flows (a poll found some in
        /// the last second): webhooks leave within about this long of their credit, while an
        /// idle outbox is still read only every ``pollInterval``.
        public var activePollInterval: Duration
        /// Rung by the fulfiller of the same process when it commits (`iap up`): then the
        /// notifier looks when rung, and otherwise only every ``pollInterval``, instead of
        /// polling every ``activePollInterval`` while traffic flows.
        public var doorbell: Doorbell?
        /// The most notifications claimed from the outbox in one poll.
        public var batchSize: Int
        /// The most deliveries in flight at once.
        public var maxInFlight: Int
        /// The time limit of one delivery, connection included.
        public var requestTimeout: Duration
        /// Added to ``requestTimeout`` to make the lease on a claimed notification: if this
        /// process dies mid-delivery, the notification comes due again when the lease ends.
        public var leaseMargin: Duration
        /// When to retry a failed delivery and when to give up.
        public var schedule: RetrySchedule

        /// Creates a configuration.
        /// - Parameters:
        ///   - webhookURL: The endpoint to POST to, or nil to deliver nothing.
        ///   - secret: The signing secret.
        ///   - pollInterval: The pause between polls of an empty outbox; 200 ms by default.
        ///   - activePollInterval: The pause for a second after a poll that found
        ///     notifications; 20 ms by default, never longer than `pollInterval`.
        ///   - batchSize: The most notifications claimed per poll.
        ///   - maxInFlight: The most deliveries at once.
        ///   - requestTimeout: The time limit of one delivery.
        ///   - leaseMargin: Extra lease time beyond `requestTimeout`.
        ///   - schedule: The retry schedule.
        public init(
            webhookURL: String?,
            secret: WebhookSecret,
            pollInterval: Duration = .milliseconds(200),
            activePollInterval: Duration = .milliseconds(20),
            batchSize: Int = 256,
            maxInFlight: Int = 64,
            requestTimeout: Duration = .seconds(10),
            leaseMargin: Duration = .seconds(20),
            schedule: RetrySchedule = RetrySchedule()
        ) {
            precondition(batchSize >= 1 && maxInFlight >= 1, "batchSize and maxInFlight must be positive")
            self.webhookURL = webhookURL
            self.secret = secret
            self.pollInterval = pollInterval
            self.activePollInterval = min(activePollInterval, pollInterval)
            self.batchSize = batchSize
            self.maxInFlight = maxInFlight
            self.requestTimeout = requestTimeout
            self.leaseMargin = leaseMargin
            self.schedule = schedule
        }

        /// How long a claimed notification stays out of other polls.
        var lease: Duration { requestTimeout + leaseMargin }

        /// Whether any app's webhooks are delivered.
        var delivers: Bool { webhookURL != nil || !apps.isEmpty }
    }

    /// One app's webhook endpoint and signing secrets.
    public struct AppWebhook: Sendable {
        public var url: String
        public var secret: WebhookSecret
        /// The other secret of a rotation.
        public var additionalSecrets: [WebhookSecret]

        public init(url: String, secret: WebhookSecret, additionalSecrets: [WebhookSecret] = []) {
            self.url = url
            self.secret = secret
            self.additionalSecrets = additionalSecrets
        }
    }
}
