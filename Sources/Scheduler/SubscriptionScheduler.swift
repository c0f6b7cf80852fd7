import Broker
import Database
import Foundation
import Logging
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Asks Apple about every auto-renewable subscription an hour before it expires, and again
/// an hour after if it has not renewed by then, because Apple's renewal notices do not
/// always arrive.
///
/// Each check is a row of the database first (planned once per expiry), then a message on
/// the validate queue like any receipt: the validators ask Apple (Server API, or
/// `verifyReceipt` with the latest receipt), and the fulfiller extends or ends the
/// entitlement and queues the webhook. A check whose publish the broker did not confirm is
/// published again at the next tick. It runs in every fulfiller; on PostgreSQL only the
/// one holding the lead (``Leadership``) plans and publishes, and another takes over when
/// it dies.
///
/// ```swift
/// let scheduler = SubscriptionScheduler(
///     connection: amqp, topology: topology, checks: SubscriptionRepository(database),
///     catalogs: AppCatalogs(catalog, others: otherApps), logger: logger)
/// ```
public struct SubscriptionScheduler: Service {
    public struct Configuration: Sendable {
        /// How long before an expiry the first check runs.
        public var lead: Duration
        /// How long after an expiry the second check runs, if the subscription has not renewed.
        public var lag: Duration
        /// How often the scheduler looks for due checks.
        public var interval: Duration
        public var batchSize: Int

        public init(
            lead: Duration = .seconds(3600), lag: Duration = .seconds(3600), interval: Duration = .seconds(60),
            batchSize: Int = 500
        ) {
            self.lead = lead
            self.lag = lag
            self.interval = interval
            self.batchSize = batchSize
        }

        /// Reads `IAP_SUBSCRIPTION_CHECK_LEAD_SECONDS`, `IAP_SUBSCRIPTION_CHECK_LAG_SECONDS`
        /// and `IAP_SCHEDULER_INTERVAL_SECONDS`.
        public init(environment env: EnvironmentReader) throws(SettingError) {
            self.init(
                lead: .seconds(try env.int("IAP_SUBSCRIPTION_CHECK_LEAD_SECONDS", default: 3600, range: 0...86_400)),
                lag: .seconds(try env.int("IAP_SUBSCRIPTION_CHECK_LAG_SECONDS", default: 3600, range: 0...86_400)),
                interval: .seconds(try env.int("IAP_SCHEDULER_INTERVAL_SECONDS", default: 60, range: 1...3600)))
        }
    }

    let connection: AMQPConnection
    let topology: PipelineTopology
    let checks: SubscriptionRepository
    /// Each app's catalog: a subscription is judged by its account's app's (issue 30).
    let catalogs: AppCatalogs
    let configuration: Configuration
    let leadership: any Leadership
    let logger: Logger

    public init(
        connection: AMQPConnection, topology: PipelineTopology, checks: SubscriptionRepository, catalogs: AppCatalogs,
        configuration: Configuration = .init(), leadership: any Leadership = AlwaysLeader(), logger: Logger
    ) {
        self.leadership = leadership
        self.connection = connection
        self.topology = topology
        self.checks = checks
        self.catalogs = catalogs
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if await leadership.isLeader() { await tick() }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
        }
        await leadership.resign()
    }

    /// Plans new checks, then publishes every due one. Failures are logged and retried at
    /// the next tick: a check stays in the database until the broker confirms it.
    public func tick(now: Date = Date()) async {
        do {
            let planned = try await checks.scheduleSubscriptionChecks(
                catalogs: catalogs, lead: configuration.lead, lag: configuration.lag, now: now)
            if planned > 0 { logger.debug("subscription checks planned", metadata: ["count": "\(planned)"]) }
            while true {
                let due = try await checks.claimDueSubscriptionChecks(now: now, limit: configuration.batchSize)
                guard !due.isEmpty else { return }
                let published = await publish(due)
                guard published == due.count, due.count == configuration.batchSize else { return }
            }
        } catch {
            logger.warning(
                "subscription checks: database unavailable, trying again later", metadata: ["error": "\(error)"])
        }
    }

    private func publish(_ due: [SubscriptionCheckDetails]) async -> Int {
        let confirmed = await connection.publishSubmissions(
            due.map(\.submission), topology: topology, type: "subscription_check"
        ).confirmed
        for check in due where confirmed.contains(check.checkID) {
            logger.info(
                "asking Apple about a subscription",
                metadata: [
                    "check_id": "\(check.checkID)", "original_transaction_id": "\(check.originalTransactionID)",
                    "phase": "\(check.phase)", "expires_at": "\(Timestamp.format(check.expiresAt))",
                ])
        }
        do {
            try await checks.markSubscriptionChecksPublished(confirmed, at: Date())
        } catch {
            logger.warning("cannot mark subscription checks published", metadata: ["error": "\(error)"])
        }
        return confirmed.count
    }
}
