import Foundation
import GooglePlay
import Logging
import Metrics
import Observability
import PipelineCore
import ServiceLifecycle
import Store
import StorePlugins

/// Tells Google every credited Play purchase was delivered: consumes consumables (so the
/// player can buy again) and acknowledges the rest, from the rows the credit's own
/// transaction wrote (``GoogleAcknowledgementStore``), until Google says it is done.
///
/// Failures Google may recover from are tried again with backoff (`initialBackoff`, doubled,
/// at most an hour); a token Google no longer knows (refunded meanwhile) or refuses is
/// given up on and counted as overdue, as is a purchase still unacknowledged after two days
/// (Google refunds at three): `iap_google_acknowledgements_overdue`, and the console says so.
/// Any number of fulfillers may run it: a claim leases its rows.
public struct GooglePlayAcknowledger: Service {
    public struct Configuration: Sendable {
        /// How often the table is looked at when nothing is due.
        public var interval: Duration = .seconds(1)
        public var initialBackoff: TimeInterval = 5
        public var batch = 32
        /// When an unacknowledged purchase is an alarm.
        public var overdueAfter: TimeInterval = 2 * 86_400

        public init() {}
    }

    let store: GoogleAcknowledgementStore
    let client: GooglePlayClient
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date

    public init(
        store: GoogleAcknowledgementStore, client: GooglePlayClient, configuration: Configuration = .init(),
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.client = client
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        logger.info("acknowledging Google Play purchases")
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var worked = false
            do {
                let due = try await store.claimDue(now: now(), limit: configuration.batch)
                worked = !due.isEmpty
                await withTaskGroup(of: Void.self) { group in
                    for acknowledgement in due { group.addTask { await tell(acknowledgement) } }
                }
                Gauge(label: MetricName.googleAcknowledgementsOverdue).record(
                    try await store.overdue(olderThan: configuration.overdueAfter, now: now()))
            } catch {
                logger.warning("Google Play acknowledgements: the store failed", metadata: ["error": "\(error)"])
            }
            if !worked {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
            }
        }
    }

    /// One call to Google (the plug-in's ``GooglePlayStore/confirm(_:client:)``) and its
    /// outcome recorded.
    func tell(_ acknowledgement: GoogleAcknowledgementStore.Acknowledgement) async {
        let action: GooglePlayConfirmation.Action =
            switch acknowledgement.action {
            case .consume: .consume
            case .acknowledge: .acknowledge
            case .acknowledgeSubscription: .acknowledgeSubscription
            }
        let outcome = await GooglePlayStore.confirm(
            GooglePlayConfirmation(action: action, purchase: acknowledgement.purchase), client: client)
        let token = acknowledgement.purchase.purchaseToken
        do {
            switch outcome {
            case .done:
                try await store.markDone(token: token, now: now())
                logger.info(
                    "Google Play purchase \(acknowledgement.action.rawValue)d",
                    metadata: ["receipt_id": "\(acknowledgement.receiptID ?? "-")"])
                return
            case .transient(let reason, let retryAfter):
                let backoff = Backoff(base: .seconds(configuration.initialBackoff), cap: .seconds(3600))
                    .delay(afterFailures: acknowledgement.attempts).seconds
                let retryAt = now().addingTimeInterval(max(backoff, retryAfter.map(Self.seconds) ?? 0))
                try await failed(acknowledgement, reason, retryAt: retryAt)
            case .failed(let reason):
                try await failed(acknowledgement, reason, retryAt: nil)
            }
        } catch {
            // The store failed after Google answered: the lease runs out and the row is told again.
            logger.warning("Google Play acknowledgement not recorded", metadata: ["error": "\(error)"])
        }
    }

    private func failed(_ acknowledgement: GoogleAcknowledgementStore.Acknowledgement, _ reason: String, retryAt: Date?)
        async throws
    {
        logger.warning(
            "Google Play acknowledgement failed",
            metadata: [
                "receipt_id": "\(acknowledgement.receiptID ?? "-")", "error": "\(reason)",
                "attempts": "\(acknowledgement.attempts)", "again": "\(retryAt.map { "\($0)" } ?? "never")",
            ])
        try await store.markFailed(token: acknowledgement.purchase.purchaseToken, error: reason, retryAt: retryAt)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
