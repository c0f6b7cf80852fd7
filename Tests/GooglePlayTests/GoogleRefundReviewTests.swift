import Foundation
import GooglePlay
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// Google's collaborative chargeback review: the pending refund review notification read from
/// a push, and `orders.reviewrefund` answered to the stub over loopback HTTP.
@Suite struct GoogleRefundReviewTests {
    static let package = GooglePlayFixture.package

    @Test func aPendingRefundReviewIsReadWithItsOrderAndToken_andMeansAConsumptionRequest() throws {
        let review = try GooglePubSubPush.notice(
            from: GooglePubSubPushTests.body([
                "version": "1.0", "packageName": Self.package, "eventTimeMillis": "1783296000000",
                "pendingRefundReviewNotification": [
                    "version": "1.0", "orderId": "GPA.3333-4444-5555-66666", "pendingRefundToken": "prr-token-1",
                    "refundReason": 7,
                ],
            ]))
        #expect(review.kind == .pendingRefundReview && review.typeName == "PENDING_REFUND_REVIEW")
        #expect(review.orderID == "GPA.3333-4444-5555-66666" && review.pendingRefundToken == "prr-token-1")
        #expect(review.purchaseToken == nil && review.eventTime == Date(timeIntervalSince1970: 1_783_296_000))
        // Stored and read back whole, the token the answer needs included
        #expect(GoogleNotice(canonicalJSON: review.canonicalJSON) == review)
        #expect(review.canonicalJSON.contains(#""pending_refund_token":"prr-token-1""#))
        // The engine takes it as Apple's consumption request: recorded, no money moved
        #expect(StoreNotification(notificationUUID: "1", type: review.typeName).type == .consumptionRequest)
    }

    @Test func aPendingRefundReviewWithoutItsOrderOrTokenIsRefusedNamingTheMember() {
        for (inner, field) in [
            (["pendingRefundToken": "prr"], "orderId"), (["orderId": "GPA.1"], "pendingRefundToken"),
            (["orderId": "GPA.1", "pendingRefundToken": "p\u{0}r"], "pendingRefundToken"),
            (["orderId": "", "pendingRefundToken": "prr"], "orderId"),
        ] {
            let body = GooglePubSubPushTests.body([
                "packageName": Self.package, "pendingRefundReviewNotification": inner,
            ])
            #expect(throws: GooglePubSubPush.Problem.self) { try GooglePubSubPush.notice(from: body) }
            do {
                _ = try GooglePubSubPush.notice(from: body)
            } catch {
                #expect(error.field == "message.data.pendingRefundReviewNotification." + field, "\(error)")
            }
        }
    }

    @Test func theAnswerReachesTheStubOnce_asGoogleDocumentsItsBody() async throws {
        try await GooglePlayFixture.run { fixture in
            // Given a review the stub opened, as the notification Pub/Sub would push
            let opened = fixture.play.openRefundReview(order: "GPA.7777-8888-9999-00000", token: "prr-42")
            #expect(opened["orderId"] as? String == "GPA.7777-8888-9999-00000")
            #expect(opened["pendingRefundToken"] as? String == "prr-42")
            let client = try fixture.client()

            // When it is answered: 60 % of the coins spent, no preference
            let answer = RefundReviewRequest(
                pendingRefundToken: "prr-42", sampleContentProvided: false, refundPreference: "NEUTRAL",
                consumptionPercentageMilliunits: 60_000)
            #expect(
                answer.json
                    == #"{"consumptionPercentageMilliunits":60000,"pendingRefundToken":"prr-42","refundPreference":"NEUTRAL","sampleContentProvided":false}"#
            )
            try await client.reviewRefund(packageName: Self.package, orderID: "GPA.7777-8888-9999-00000", answer)

            // Then the stub has it, for that order, once
            #expect(
                fixture.play.stats.refundReviewAnswers == [
                    .init(packageName: Self.package, orderID: "GPA.7777-8888-9999-00000", answer: answer)
                ])
            #expect(fixture.play.stats.calls["orders.reviewrefund"] == 1)

            // And a second answer, another order's token, or a preference Google has not are refused for good
            for (order, body) in [
                ("GPA.7777-8888-9999-00000", answer),
                ("GPA.other", answer),
                (
                    "GPA.7777-8888-9999-00000",
                    RefundReviewRequest(
                        pendingRefundToken: "prr-42", sampleContentProvided: false, refundPreference: "GRANT_FULL")
                ),
            ] {
                do throws(StoreCallError) {
                    try await client.reviewRefund(packageName: Self.package, orderID: order, body)
                    Issue.record("\(order): accepted")
                } catch {
                    #expect(error.status == 400 && !error.isRetryable, "\(error)")
                }
            }
            #expect(fixture.play.stats.refundReviewAnswers.count == 1)
        }
    }
}
