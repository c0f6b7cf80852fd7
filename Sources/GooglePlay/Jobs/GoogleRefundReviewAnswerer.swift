import Database
import Foundation
import Logging
import Metrics
import PipelineCore
import ServiceLifecycle
import Settlement
import SettlementWriter

/// Answers Google's pending refund reviews (a chargeback it asks us about, RTDN
/// `pendingRefundReviewNotification`) with `orders.reviewrefund`, from what the ledger knows.
///
/// Google waits 24 hours for the answer. Each review the fulfiller applied is answered once:
/// ``RefundReviewAnswer`` decides from the ledger's facts (whether the order credited
/// anything, and how much of a currency credit the player has spent since), this sends it,
/// and ``GoogleRefundReviewRepository`` records what was sent. A call Google may recover from is
/// tried again with backoff while the 24 hours last; one Google refuses (`4xx`) is recorded
/// `refused` and left to an operator. One process at a time answers (its `leadership`), as
/// Apple's consumption answers are.
public struct GoogleRefundReviewAnswerer: Service {
    public struct Configuration: Sendable {
        /// How often pending reviews are looked for.
        public var interval: Duration = .seconds(30)
        /// Whether answers carry a preference other than `NEUTRAL` (IAP_CONSUMPTION_REFUND_PREFERENCE, as Apple's).
        public var prefers = true
        public var initialBackoff: TimeInterval = 30
        public var batch = 100

        public init(prefers: Bool = true) {
            self.prefers = prefers
        }
    }

    /// Answers recorded, by `status` (`sent`, `failed`, `refused`).
    public static let metric = "iap_google_refund_reviews_total"
    /// Google's window for an answer.
    static let deadline: TimeInterval = 24 * 3_600

    let client: GooglePlayClient
    let store: GoogleRefundReviewRepository
    let configuration: Configuration
    /// Whose reviews it answers: its app's accounts' (another app's are its own answerer's).
    let app: AppScope
    let leadership: any Leadership
    let logger: Logger
    let now: @Sendable () -> Date

    public init(
        client: GooglePlayClient, store: GoogleRefundReviewRepository, configuration: Configuration = .init(),
        app: AppScope = .single, leadership: any Leadership = AlwaysLeader(), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.app = app
        self.leadership = leadership
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if await leadership.isLeader() {
                do {
                    _ = try await answerPending()
                } catch {
                    logger.error(
                        "Google refund reviews: the store failed; again at the next pass",
                        metadata: ["error": "\(error)"])
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
        }
        await leadership.resign()
    }

    /// Answers every review due now; returns what it recorded.
    public func answerPending() async throws -> [GoogleRefundReviewRepository.Answer] {
        let pending = try await store.pending(
            since: now().addingTimeInterval(-Self.deadline), now: now(), limit: configuration.batch, app: app)
        var recorded: [GoogleRefundReviewRepository.Answer] = []
        for review in pending {
            let decided = RefundReviewAnswer.decide(try await store.facts(for: review), prefers: configuration.prefers)
            let request = RefundReviewRequest(
                pendingRefundToken: review.pendingRefundToken, sampleContentProvided: decided.sampleContentProvided,
                refundPreference: decided.refundPreference.rawValue,
                consumptionPercentageMilliunits: decided.consumptionPercentageMilliunits)
            var answer = GoogleRefundReviewRepository.Answer(
                notificationID: review.notificationID, orderID: review.orderID, accountID: review.accountID,
                status: .sent, body: request.json, attempts: review.attempts + 1)
            do {
                try await client.reviewRefund(packageName: review.packageName, orderID: review.orderID, request)
                answer.googleStatus = 200
            } catch {
                answer.googleStatus = error.status
                answer.reason = error.description
                if error.isRetryable || error.code == .unauthorized {
                    let backoff = Backoff(base: .seconds(configuration.initialBackoff), cap: .seconds(3600))
                        .delay(afterFailures: answer.attempts).seconds
                    let wait = max(backoff, error.retryAfter?.seconds ?? 0)
                    answer.status = .failed
                    answer.nextAttemptAt = now().addingTimeInterval(wait)
                } else {
                    answer.status = .refused
                }
            }
            try await store.record(answer, now: now())
            Counter(label: Self.metric, dimensions: [("status", answer.status.rawValue)])
                .increment()
            logger.log(
                level: answer.status == .sent ? .info : .warning, "Google refund review answered",
                metadata: [
                    "notification_id": "\(answer.notificationID)", "status": "\(answer.status.rawValue)",
                    "preference": "\(decided.refundPreference.rawValue)", "reason": "\(answer.reason ?? "none")",
                ])
            recorded.append(answer)
        }
        return recorded
    }
}
