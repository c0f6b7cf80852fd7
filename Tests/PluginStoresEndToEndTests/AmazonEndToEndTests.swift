import Amazon
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// Amazon Appstore purchases through the plug-in seam: posted as the `amazon` member of
/// `POST /v1/receipts`, or announced by Real-Time Notifications that SNS posts (`text/plain`,
/// signed) to `POST /v1/amazon/notifications`, each read back from the (stub) RVS before the
/// engine every store shares moves money; on the real broker, both backends.
@Suite struct AmazonEndToEndTests {
    static let coins = "com.example.coins100"
    static let vip = "com.example.vip.monthly"

    @Test(arguments: TestBackend.allCases) func aPurchaseAndItsNotificationsCreditItOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a consumable Amazon sold, posted by the backend
            let amazon = pipeline.stub.amazon
            let bought = amazon.buy(userID: "amzn-user-1", productID: Self.coins)
            let (status, answer) = try await pipeline.submitAmazon(
                account: "amazon-1", userID: "amzn-user-1", receiptID: bought.receiptID)
            #expect(status == 202, "\(answer)")
            let receipt = try #require(answer["receipt_id"] as? String)
            let final = try await pipeline.finalStatus(receipt)
            #expect(
                final["status"] as? String == "credited" && final["kind"] as? String == "amazon.purchase", "\(final)")
            #expect(try await pipeline.balance("amazon-1") == 100)

            // When Amazon announces it, and SNS delivers it twice
            let push = amazon.notification("CONSUMABLE_PURCHASED", receiptID: bought.receiptID)
            let (first, stored) = try await pipeline.deliverAmazon(push)
            #expect(first == 200, "\(stored)")
            let (again, _) = try await pipeline.deliverAmazon(push)
            #expect(again == 200)
            #expect(try await pipeline.storedNotifications() == 1, "one row per SNS message id")
            let id = try #require(stored["notification_id"] as? String)
            let details = try #require(try await pipeline.settledNotification(id))

            // Then nothing more is credited: the receipt's one transaction is the account's
            #expect(details.accountID == "amazon-1", "\(details)")
            #expect(try await pipeline.balance("amazon-1") == 100)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "amazon-1")).ledger
            #expect(ledger.map(\.transactionID) == ["amazon:\(bought.receiptID)"])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aRefundIsTakenBackOnce(_ backend: TestBackend) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let amazon = pipeline.stub.amazon
            let bought = amazon.buy(userID: "amzn-user-r", productID: Self.coins)
            let (_, answer) = try await pipeline.submitAmazon(
                account: "amazon-r", userID: "amzn-user-r", receiptID: bought.receiptID)
            _ = try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))
            #expect(try await pipeline.balance("amazon-r") == 100)

            // When Amazon refunds it and announces it twice, under two SNS message ids
            amazon.cancel(bought.receiptID, at: Date().addingTimeInterval(-1))
            var ids: [String] = []
            for message in ["refund-1", "refund-2"] {
                let push = amazon.notification("CONSUMABLE_CANCELLED", receiptID: bought.receiptID, messageID: message)
                let (status, stored) = try await pipeline.deliverAmazon(push)
                #expect(status == 200, "\(stored)")
                ids.append(try #require(stored["notification_id"] as? String))
            }
            for id in ids { _ = try await pipeline.settledNotification(id) }

            // Then the coins are taken back once, with a purchase.refunded webhook
            #expect(try await pipeline.balance("amazon-r") == 0)
            #expect(try await pipeline.ledgerKinds("amazon-r") == [.refund, .purchase])
            let refunded = try await pipeline.webhooks("purchase.refunded", mentioning: "amazon:\(bought.receiptID)")
            #expect(refunded.count == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func forgedStaleAndContradictedNotificationsMoveNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let amazon = pipeline.stub.amazon
            let bought = amazon.buy(userID: "amzn-user-f", productID: Self.coins)
            let (_, answer) = try await pipeline.submitAmazon(
                account: "amazon-f", userID: "amzn-user-f", receiptID: bought.receiptID)
            _ = try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))

            // A forged or stale signature, or another app's notification, is refused and stored nowhere
            let forged = amazon.notification("CONSUMABLE_CANCELLED", receiptID: bought.receiptID, forged: true)
            let (forgedStatus, forgedAnswer) = try await pipeline.deliverAmazon(forged)
            #expect(forgedStatus == 401 && "\(forgedAnswer)".contains("unauthorized"), "\(forgedAnswer)")
            let stale = amazon.notification(
                "CONSUMABLE_CANCELLED", receiptID: bought.receiptID, sentAt: Date().addingTimeInterval(-7200))
            let staleStatus = try await pipeline.deliverAmazon(stale).0
            #expect(staleStatus == 401)
            let other = amazon.notification(
                "CONSUMABLE_CANCELLED", receiptID: bought.receiptID, package: "com.example.another")
            let otherStatus = try await pipeline.deliverAmazon(other).0
            #expect(otherStatus == 401)
            #expect(try await pipeline.storedNotifications() == 0)

            // The endpoint's subscription confirmation is acknowledged, nothing stored
            let (confirmed, acknowledged) = try await pipeline.deliverAmazon(amazon.subscriptionConfirmation())
            #expect(confirmed == 200 && acknowledged["acknowledged"] as? Bool == true, "\(acknowledged)")
            #expect(try await pipeline.storedNotifications() == 0)

            // A refund SNS signed but RVS does not show is stored, judged, and moves nothing
            let unshown = amazon.notification("CONSUMABLE_CANCELLED", receiptID: bought.receiptID)
            let (status, stored) = try await pipeline.deliverAmazon(unshown)
            #expect(status == 200, "\(stored)")
            let unshownID = try #require(stored["notification_id"] as? String)
            let details = try #require(try await pipeline.settledNotification(unshownID))
            #expect(details.status == .rejected, "\(details)")
            #expect(try await pipeline.balance("amazon-f") == 100)

            // A notification about a receipt no app recorded is dropped without asking RVS
            let stranger = amazon.buy(userID: "amzn-user-x", productID: Self.coins)
            let calls = amazon.calls
            let (dropped, ignored) = try await pipeline.deliverAmazon(
                amazon.notification("CONSUMABLE_PURCHASED", receiptID: stranger.receiptID))
            #expect(dropped == 200 && ignored["ignored"] != nil, "\(ignored)")
            let rows = try await pipeline.storedNotifications()
            #expect(amazon.calls == calls && rows == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func aSubscriptionRenewsAndEndsAsRVSSays(_ backend: TestBackend) async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a subscription the backend posted, paid for an hour
            let amazon = pipeline.stub.amazon
            let firstEnd = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())
            let bought = amazon.buy(
                userID: "amzn-user-s", productID: Self.vip, type: .subscription, renewalDate: firstEnd)
            let (_, answer) = try await pipeline.submitAmazon(
                account: "amazon-s", userID: "amzn-user-s", receiptID: bought.receiptID)
            let final = try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))
            #expect(final["status"] as? String == "credited", "\(final)")
            #expect(try await pipeline.entitlementEnd("amazon-s") == firstEnd)

            // When Amazon renews it for a month and announces it
            let renewedEnd = firstEnd.addingTimeInterval(30 * 86_400)
            amazon.renew(bought.receiptID, until: renewedEnd)
            let (_, renewal) = try await pipeline.deliverAmazon(
                amazon.notification("SUBSCRIPTION_RENEWED", receiptID: bought.receiptID))
            let renewalID = try #require(renewal["notification_id"] as? String)
            let renewed = try #require(try await pipeline.settledNotification(renewalID))
            #expect(renewed.status == .applied && renewed.type == "DID_RENEW", "\(renewed)")
            #expect(try await pipeline.entitlementEnd("amazon-s") == renewedEnd)

            // When the customer cancels and Amazon says so: the entitlement ends when RVS says
            let cancelled = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded())
            amazon.cancel(bought.receiptID, at: cancelled)
            let (_, ending) = try await pipeline.deliverAmazon(
                amazon.notification("SUBSCRIPTION_CANCELLED", receiptID: bought.receiptID))
            let endingID = try #require(ending["notification_id"] as? String)
            let ended = try #require(try await pipeline.settledNotification(endingID))
            #expect(ended.status == .applied && ended.type == "EXPIRED", "\(ended)")
            let end = try #require(try await pipeline.entitlementEnd("amazon-s"))
            #expect(end <= Date(), "\(end)")
        }
    }
}
