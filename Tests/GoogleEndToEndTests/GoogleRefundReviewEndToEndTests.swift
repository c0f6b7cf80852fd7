import Database
import Foundation
import Fulfiller
import GooglePlay
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Google's collaborative chargeback review, end to end on the real broker and both
/// backends: the pending refund review pushed as Pub/Sub does, stored once, verified and
/// recorded against the account its order credited with no money moved, then answered to
/// the (stub) Developer API's `orders.reviewrefund` from what the ledger knows, once.
@Suite struct GoogleRefundReviewEndToEndTests {
    static let coins = "com.example.coins100"
    static let order = "GPA.1212-3434-5656-78787"

    func settled(_ pipeline: PipelineHarness, _ id: String) async throws -> NotificationDetails? {
        let store = NotificationRepository(pipeline.database)
        _ = await eventually(timeout: .seconds(30)) {
            guard let status = try? await store.notification(id: id)?.status else { return false }
            return [.applied, .rejected, .dead].contains(status)
        }
        return try await store.notification(id: id)
    }

    @Test(arguments: TestBackend.allCases) func aChargebackReviewIsRecordedOnce_andAnsweredFromTheLedger(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a Play purchase of 100 coins credited to a player who spent 60 of them
            let play = pipeline.stub.googlePlay
            play.register(
                token: "coin-token-review",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.coins, productOfferDetails: .init(quantity: 1))],
                    purchaseState: "PURCHASED", orderId: Self.order))
            let (_, posted) = try await pipeline.submitGooglePlay(
                account: "android-review", token: "coin-token-review", product: Self.coins)
            let receipt = try #require(posted["receipt_id"] as? String)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            _ = try await AdjustmentRepository(pipeline.database).apply(
                .init(
                    accountID: "android-review", change: .currency("coins", amount: -60), reason: "spent in the shop",
                    operatorName: "tests", idempotencyKey: UUID().uuidString),
                catalog: PipelineHarness.catalog, now: Date())

            // When Google opens a chargeback review of its order, and Pub/Sub pushes it twice
            let notice = PipelineHarness.developerNotification(
                "pendingRefundReviewNotification", play.openRefundReview(order: Self.order, token: "prr-e2e"))
            let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: "8101")
            #expect(status == 200)
            let id = try #require(accepted["notification_id"] as? String)
            let (again, resent) = try await pipeline.pushGoogle(notice, messageID: "8101")
            #expect(again == 200 && resent["notification_id"] as? String == id)

            // Then it is stored once and recorded against the account, and no money moves
            let details = try #require(try await settled(pipeline, id))
            #expect(details.status == .applied && details.type == "PENDING_REFUND_REVIEW", "\(details)")
            #expect(details.transactionID == Self.order && details.accountID == "android-review")
            #expect(details.reason == "consumption_request" && details.productID == Self.coins)
            #expect(details.originalTransactionID == "coin-token-review")
            #expect(try await ReceiptRepository(pipeline.database).notificationStatusCounts().values.reduce(0, +) == 1)
            #expect(try await pipeline.balance("android-review") == 40)

            // And Google hears, once: 60 % consumed, no preference either way
            let answerer = GoogleRefundReviewAnswerer(
                client: try pipeline.googlePlaySetup().client(httpClient: pipeline.client),
                store: GoogleRefundReviewRepository(pipeline.database), logger: Logger(label: "refund-reviews"))
            let answered = try await answerer.answerPending()
            #expect(answered.map(\.status) == [.sent])
            let expected = RefundReviewRequest(
                pendingRefundToken: "prr-e2e", sampleContentProvided: false, refundPreference: "NEUTRAL",
                consumptionPercentageMilliunits: 60_000)
            #expect(
                play.stats.refundReviewAnswers == [
                    .init(packageName: PipelineHarness.googlePackage, orderID: Self.order, answer: expected)
                ])
            let recorded = try await GoogleRefundReviewRepository(pipeline.database).answer(notificationID: id)
            #expect(recorded?.status == .sent && recorded?.googleStatus == 200 && recorded?.attempts == 1)
            #expect(recorded?.body == expected.json && recorded?.accountID == "android-review")
            #expect(try await answerer.answerPending().isEmpty)
            #expect(play.stats.refundReviewAnswers.count == 1)

            // And a review of an order the pipeline never credited is recorded as such and
            // answered too: nothing delivered, so nothing against a refund
            let stranger = PipelineHarness.developerNotification(
                "pendingRefundReviewNotification", play.openRefundReview(order: "GPA.unknown", token: "prr-stranger"))
            let (_, strangerAccepted) = try await pipeline.pushGoogle(stranger, messageID: "8102")
            let strangerID = try #require(strangerAccepted["notification_id"] as? String)
            let strangerDetails = try #require(try await settled(pipeline, strangerID))
            #expect(strangerDetails.status == .applied && strangerDetails.reason == "unknown_transaction")
            #expect(strangerDetails.accountID == nil)
            #expect(try await answerer.answerPending().map(\.status) == [.sent])
            #expect(
                play.stats.refundReviewAnswers.last?.answer
                    == RefundReviewRequest(
                        pendingRefundToken: "prr-stranger", sampleContentProvided: false, refundPreference: "APPROVE",
                        consumptionPercentageMilliunits: 0))
            #expect(try await pipeline.balance("android-review") == 40)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test func anAnswerGoogleCannotTakeNowIsTriedAgainLater_andOneItRefusesIsLeft() async throws {
        try await PipelineHarness.run { pipeline in
            // Given a review of an order nobody credited, pushed and recorded
            let play = pipeline.stub.googlePlay
            let notice = PipelineHarness.developerNotification(
                "pendingRefundReviewNotification", play.openRefundReview(order: "GPA.later", token: "prr-later"))
            let (_, accepted) = try await pipeline.pushGoogle(notice, messageID: "8201")
            let id = try #require(accepted["notification_id"] as? String)
            #expect(try await settled(pipeline, id)?.status == .applied)

            // When Google is unavailable at the first attempt
            play.configuration.withLock { $0.failFirst = 1 }
            let clock = Clock(Date())
            let answerer = GoogleRefundReviewAnswerer(
                client: try pipeline.googlePlaySetup().client(httpClient: pipeline.client),
                store: GoogleRefundReviewRepository(pipeline.database), logger: Logger(label: "refund-reviews"),
                now: { clock.now })
            let first = try await answerer.answerPending()

            // Then it is recorded failed, due again after the backoff, and not before
            #expect(first.map(\.status) == [.failed] && first.first?.googleStatus == 503)
            let due = try #require(first.first?.nextAttemptAt)
            #expect(due > clock.now)
            #expect(try await answerer.answerPending().isEmpty)
            clock.now = due
            #expect(try await answerer.answerPending().map(\.status) == [.sent])
            let sent = try await GoogleRefundReviewRepository(pipeline.database).answer(notificationID: id)
            #expect(sent?.attempts == 2 && sent?.status == .sent)
            #expect(play.stats.refundReviewAnswers.map(\.orderID) == ["GPA.later"])

            // And one Google refuses (a token it never issued) is recorded refused, never tried again
            let forged = PipelineHarness.developerNotification(
                "pendingRefundReviewNotification",
                ["version": "1.0", "orderId": "GPA.refused", "pendingRefundToken": "prr-forged"])
            let (_, refusedAccepted) = try await pipeline.pushGoogle(forged, messageID: "8202")
            let refusedID = try #require(refusedAccepted["notification_id"] as? String)
            #expect(try await settled(pipeline, refusedID)?.status == .applied)
            let refused = try await answerer.answerPending()
            #expect(refused.map(\.status) == [.refused] && refused.first?.googleStatus == 400)
            clock.now = clock.now.addingTimeInterval(3600)
            #expect(try await answerer.answerPending().isEmpty)
            #expect(play.stats.refundReviewAnswers.count == 1)
        }
    }
}

/// A clock a test moves.
private final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ start: Date) { value = start }
    var now: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
