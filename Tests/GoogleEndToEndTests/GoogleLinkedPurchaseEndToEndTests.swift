import Database
import Foundation
import GooglePlay
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// Google's `linkedPurchaseToken` through the whole pipeline, on both databases: a
/// subscription bought again under a new token (an upgrade, a downgrade, a resubscription)
/// names the old token; the new token is the old one's account's even when only Google's
/// notification brings it, the old token's access ends when the new one starts, and nothing
/// is granted twice.
@Suite struct GoogleLinkedPurchaseEndToEndTests {
    static let vip = "com.example.vip.monthly"

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    static func moment(_ offset: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + offset).rounded())
    }

    static func subscription(order: String, until end: Date, starts: Date, replacing: String? = nil)
        -> SubscriptionPurchaseV2
    {
        SubscriptionPurchaseV2(
            subscriptionState: "SUBSCRIPTION_STATE_ACTIVE", latestOrderId: order,
            lineItems: [
                .init(
                    productId: vip, expiryTime: iso(end), latestSuccessfulOrderId: order,
                    offerDetails: .init(basePlanId: "monthly", offerId: replacing == nil ? "intro-week" : nil))
            ], startTime: iso(starts), acknowledgementState: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            linkedPurchaseToken: replacing)
    }

    @Test(arguments: TestBackend.allCases) func aReplacementTokenIsTheOldAccountsAndEndsTheOldAccess(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given vip for a month under token old-token, posted by linked-1
            let play = pipeline.stub.googlePlay
            let monthEnd = Self.moment(30 * 86_400)
            play.register(
                token: "old-token",
                Self.subscription(order: "GPA.1111-2222-3333-00001", until: monthEnd, starts: Self.moment(-86_400)))
            let (_, posted) = try await pipeline.submitGooglePlay(
                account: "linked-1", token: "old-token", product: Self.vip)
            _ = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
            #expect(try await pipeline.entitlementEnd("linked-1") == monthEnd)

            // When the player changes plan: Google's new token names the old one, runs a week
            // from now, and only Google's notification brings it
            let weekEnd = Self.moment(7 * 86_400)
            play.register(
                token: "new-token",
                Self.subscription(
                    order: "GPA.1111-2222-3333-00002", until: weekEnd, starts: Self.moment(-30),
                    replacing: "old-token"))
            let notice = PipelineHarness.developerNotification(
                "subscriptionNotification",
                ["version": "1.0", "notificationType": 4, "purchaseToken": "new-token", "subscriptionId": Self.vip])
            let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: "linked-1")
            #expect(status == 200, "\(accepted)")
            let id = try #require(accepted["notification_id"] as? String)
            let details = try #require(try await pipeline.settledNotification(id))

            // Then the new token is linked-1's: vip now ends with the new token's week, not the old month
            #expect(details.status == .applied && details.accountID == "linked-1", "\(details)")
            #expect(try await pipeline.entitlementEnd("linked-1") == weekEnd)

            // And another account posting the new token gets nothing of it
            let (_, stolen) = try await pipeline.submitGooglePlay(
                account: "linked-2", token: "new-token", product: Self.vip)
            let final = try await pipeline.finalStatus(try #require(stolen["receipt_id"] as? String))
            #expect(
                final["status"] as? String == "rejected" && final["reason"] as? String == "already_credited", "\(final)"
            )
            #expect(try await pipeline.entitlementEnd("linked-2") == nil)
            #expect(try await pipeline.entitlementEnd("linked-1") == weekEnd)

            // The offer the first token was bought with is on its record
            let offers = try await pipeline.database.snapshot { db in
                try await db.rows(
                    "SELECT offer_type, offer_id FROM store_transactions WHERE original_transaction_id = 'old-token'")
            }
            #expect(
                try offers.map { [try $0.get("offer_type") as String?, try $0.get("offer_id") as String?] } == [
                    ["developer_determined", "intro-week"]
                ])
        }
    }
}
