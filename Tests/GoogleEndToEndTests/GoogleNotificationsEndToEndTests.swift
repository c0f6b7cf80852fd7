import Database
import Foundation
import Fulfiller
import GooglePlay
import HTTPClient
import Logging
import PipelineCore
import PipelineTesting
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport
@testable import Repositories

/// Google Play's real-time developer notifications, pushed as Cloud Pub/Sub does to
/// `POST /v1/google/notifications`: the push's token checked, the notice stored once per
/// message id, what it announces read back from the (stub) Developer API and applied by the
/// same engine; on the real broker, both backends.
@Suite struct GoogleNotificationsEndToEndTests {
    static let vip = "com.example.vip.monthly"
    static let coins = "com.example.coins100"

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// Waits until the notice is final; its details.
    func settled(_ pipeline: PipelineHarness, _ id: String) async throws -> NotificationDetails? {
        let store = NotificationRepository(pipeline.database)
        _ = await eventually(timeout: .seconds(30)) {
            guard let status = try? await store.notification(id: id)?.status else { return false }
            return [.applied, .rejected, .dead].contains(status)
        }
        return try await store.notification(id: id)
    }

    /// The backend posts the Play purchase; whether it ends credited.
    func credited(_ pipeline: PipelineHarness, account: String, token: String, product: String) async throws -> Bool {
        let (_, answer) = try await pipeline.submitGooglePlay(account: account, token: token, product: product)
        let receipt = try #require(answer["receipt_id"] as? String)
        return try await pipeline.finalStatus(receipt)["status"] as? String == "credited"
    }

    func entitlementEnd(_ pipeline: PipelineHarness, _ account: String) async throws -> Date? {
        try await LedgerRepository(pipeline.database).account(id: account)?.entitlements.first { $0.name == "vip" }?
            .expiresAt
    }

    @Test(arguments: TestBackend.allCases) func aSubscriptionIsRenewedByGooglesNotice(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a Play subscription the backend posted, paid for an hour
            let play = pipeline.stub.googlePlay
            let firstEnd = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())
            play.register(
                token: "sub-token-1",
                SubscriptionPurchaseV2(
                    subscriptionState: "SUBSCRIPTION_STATE_ACTIVE", latestOrderId: "GPA.5555-6666-7777-88888",
                    lineItems: [
                        .init(
                            productId: Self.vip, expiryTime: Self.iso(firstEnd),
                            latestSuccessfulOrderId: "GPA.5555-6666-7777-88888")
                    ]))
            #expect(try await credited(pipeline, account: "android-sub", token: "sub-token-1", product: Self.vip))
            #expect(try await entitlementEnd(pipeline, "android-sub") == firstEnd)

            // When Google renews it and pushes SUBSCRIPTION_RENEWED, and Pub/Sub delivers it twice
            let renewedEnd = firstEnd.addingTimeInterval(30 * 86_400)
            play.renew(token: "sub-token-1", order: "GPA.5555-6666-7777-88888..0", until: renewedEnd)
            let notice = PipelineHarness.developerNotification(
                "subscriptionNotification",
                ["version": "1.0", "notificationType": 2, "purchaseToken": "sub-token-1", "subscriptionId": Self.vip])
            let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: "7001")
            #expect(status == 200)
            let id = try #require(accepted["notification_id"] as? String)
            let (again, resent) = try await pipeline.pushGoogle(notice, messageID: "7001")
            #expect(again == 200 && resent["notification_id"] as? String == id)

            // Then the renewal is read from Google and applied once: the entitlement runs to
            // the new end, under the renewal's order, on the account that bought it
            let details = try #require(try await settled(pipeline, id))
            #expect(details.status == .applied && details.type == "SUBSCRIPTION_RENEWED", "\(details)")
            #expect(details.transactionID == "GPA.5555-6666-7777-88888..0" && details.accountID == "android-sub")
            #expect(details.notificationUUID == "7001")
            #expect(try await entitlementEnd(pipeline, "android-sub") == renewedEnd)
            #expect(play.stats.calls["subscriptionsv2.get"] == 2)
            #expect(try await ReceiptRepository(pipeline.database).notificationStatusCounts().values.reduce(0, +) == 1)
            let renewed = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) {
                $0.bodyString.contains("GPA.5555-6666-7777-88888..0")
            }
            #expect(renewed.count == 1)

            // And when it expires, Google says so and the entitlement ends there
            let expired = PipelineHarness.developerNotification(
                "subscriptionNotification",
                ["version": "1.0", "notificationType": 13, "purchaseToken": "sub-token-1", "subscriptionId": Self.vip])
            let (_, ended) = try await pipeline.pushGoogle(expired, messageID: "7002")
            let endDetails = try await settled(pipeline, try #require(ended["notification_id"] as? String))
            #expect(
                endDetails?.status == .applied && endDetails?.type == "SUBSCRIPTION_EXPIRED",
                "\(String(describing: endDetails))")
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aVoidedPurchaseNoticeIsDebitedOnceWhateverTheListSaysLater(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a credited Play purchase that Google then refunds
            let play = pipeline.stub.googlePlay
            play.register(
                token: "coin-token-9",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.coins, productOfferDetails: .init(quantity: 1))],
                    purchaseState: "PURCHASED", orderId: "GPA.9999-0000-1111-22222"))
            #expect(try await credited(pipeline, account: "android-9", token: "coin-token-9", product: Self.coins))
            play.void(token: "coin-token-9", at: Date().addingTimeInterval(-1))

            // When its VOIDED_PURCHASE notice is pushed, then the voided list is read too
            let notice = PipelineHarness.developerNotification(
                "voidedPurchaseNotification",
                [
                    "purchaseToken": "coin-token-9", "orderId": "GPA.9999-0000-1111-22222", "productType": 2,
                    "refundType": 1,
                ])
            let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: "8001")
            #expect(status == 200)
            let details = try await settled(pipeline, try #require(accepted["notification_id"] as? String))
            #expect(details?.status == .applied && details?.accountID == "android-9", "\(String(describing: details))")
            let polled = try await pipeline.voidedPoller().poll()

            // Then it is debited once: by the notice; the list finds it debited already
            #expect(polled.debited == 0 && polled.alreadyDebited == 1, "\(polled)")
            #expect(try await pipeline.balance("android-9") == 0)
            let kinds = try #require(try await LedgerRepository(pipeline.database).account(id: "android-9")).ledger.map(
                \.kind)
            #expect(kinds == [.refund, .purchase])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func twoPartialRefundNoticesOfOneOrderTakeTwoUnitsThenOne(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given five packs of 100 coins bought at once, credited
            let play = pipeline.stub.googlePlay
            play.register(
                token: "coin-token-5",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.coins, productOfferDetails: .init(quantity: 5))],
                    purchaseState: "PURCHASED", orderId: "GPA.5555-0000-1111-22222"))
            #expect(try await credited(pipeline, account: "android-5", token: "coin-token-5", product: Self.coins))
            let notice = PipelineHarness.developerNotification(
                "voidedPurchaseNotification",
                [
                    "purchaseToken": "coin-token-5", "orderId": "GPA.5555-0000-1111-22222", "productType": 2,
                    "refundType": 2,
                ])
            let push = { (messageID: String) in
                let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: messageID)
                #expect(status == 200)
                return try await settled(pipeline, try #require(accepted["notification_id"] as? String))
            }

            // When Google refunds two units and notifies, then notifies the same again under another id
            play.void(token: "coin-token-5", at: Date().addingTimeInterval(-2), quantity: 2)
            let first = try await push("8101")
            let again = try await push("8102")

            // Then 200 coins go, once
            #expect(first?.status == .applied && first?.reason == nil, "\(String(describing: first))")
            #expect(again?.reason == "already_refunded", "\(String(describing: again))")
            #expect(try await pipeline.balance("android-5") == 300)

            // When it refunds one unit more (three of five) and notifies
            play.void(token: "coin-token-5", at: Date().addingTimeInterval(-1), quantity: 1)
            let second = try await push("8103")

            // Then 100 more go, once, and the voided list, read after, finds both taken
            #expect(second?.status == .applied && second?.reason == nil, "\(String(describing: second))")
            #expect(try await pipeline.balance("android-5") == 200)
            let polled = try await pipeline.voidedPoller().poll()
            #expect(polled.debited == 0 && polled.alreadyDebited == 2, "\(polled)")
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "android-5")).ledger
            #expect(ledger.map(\.amount) == [-100, -200, 500])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aPurchaseAnnouncedBeforeItsReceiptIsCreditedByItsOrderAndAcknowledged(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given an order whose token the app passed to Google as the obfuscated account id
            let (_, order) = try await pipeline.post(
                "/v1/orders", ["account_id": "android-7", "product_id": Self.coins])
            let token = try #require(order["app_account_token"] as? String)
            pipeline.stub.googlePlay.register(
                token: "coin-token-7",
                ProductPurchaseV2(
                    productLineItem: [.init(productId: Self.coins, productOfferDetails: .init(quantity: 1))],
                    purchaseState: "PURCHASED", orderId: "GPA.7777-0000-1111-22222",
                    obfuscatedExternalAccountId: token))

            // When Google's ONE_TIME_PRODUCT_PURCHASED arrives before the backend posts anything
            let notice = PipelineHarness.developerNotification(
                "oneTimeProductNotification",
                ["version": "1.0", "notificationType": 1, "purchaseToken": "coin-token-7", "sku": Self.coins])
            let (pushed, accepted) = try await pipeline.pushGoogle(notice, messageID: "9001")
            #expect(pushed == 200, "\(accepted)")
            let details = try await settled(pipeline, try #require(accepted["notification_id"] as? String))

            // Then the order's account is credited, and Google is told (consumed), once
            #expect(details?.status == .applied && details?.accountID == "android-7", "\(String(describing: details))")
            #expect(try await pipeline.balance("android-7") == 100)
            #expect(await pipeline.googleConfirmation("GPA.7777-0000-1111-22222", becomes: .done))
            let owed = try await pipeline.googleConfirmation("GPA.7777-0000-1111-22222")
            #expect(owed?.action == .consume && owed?.row.receiptID == nil)
            #expect(pipeline.stub.googlePlay.stats.consumed == ["coin-token-7"])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aPushTheReleaseBeforeStoredIsADuplicateWhenRedelivered(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a push the release with Google built in stored as it did: store google,
            // keyed by Pub/Sub's bare message id
            let notice = PipelineHarness.developerNotification("testNotification", ["version": "1.0"])
            let stored = try GooglePubSubPush.notice(from: Array(StubGooglePlay.pushBody(notice, messageID: "8001")))
            let payload = stored.canonicalJSON
            let old = NotificationRow(
                id: TimeOrderedID.make(), app: "", payload: payload, payloadHash: PayloadHash.notification(payload),
                now: Date(), store: "google", messageID: stored.messageID)
            try await pipeline.database.transaction { db in try await db.insert(old, into: "store_notifications") }

            // When Pub/Sub, never having had the answer, delivers it again to this release
            let (status, answer) = try await pipeline.pushGoogle(notice, messageID: "8001")

            // Then it is answered as a duplicate, with the first row's id, and nothing is stored
            #expect(status == 200 && answer["notification_id"] as? String == old.id, "\(answer)")
            #expect(try await googleKeys(pipeline) == ["8001"])
            // And another message is still another notification, keyed as this release keys it
            let (other, next) = try await pipeline.pushGoogle(notice, messageID: "8002")
            #expect(other == 200 && next["notification_id"] as? String != old.id)
            #expect(try await googleKeys(pipeline) == ["8001", "google:8002"])
        }
    }

    /// The `message_id` of every Google row, in order.
    func googleKeys(_ pipeline: PipelineHarness) async throws -> [String] {
        try await pipeline.database.transaction { db in
            try await db.rows("SELECT message_id FROM store_notifications WHERE store = 'google' ORDER BY 1")
                .map { try $0.get("message_id", as: String.self) }
        }
    }

    @Test func aPushWithoutGooglesTokenIsRefused401AndStoresNothing() async throws {
        try await PipelineHarness.run { pipeline in
            let notice = PipelineHarness.developerNotification("testNotification", ["version": "1.0"])
            let audience = PipelineHarness.pushAudience
            let forged = StubGooglePlay().pushToken(audience: audience)
            let cases: [(String?, String)] = [
                (nil, "no bearer token"),
                ("Bearer \(forged)", "the token's signature is not Google's"),
                (
                    "Bearer \(pipeline.stub.googlePlay.pushToken(audience: "https://elsewhere.example.com"))",
                    "the token is for another audience"
                ),
                (
                    "Bearer \(pipeline.stub.googlePlay.pushToken(audience: audience, email: "x@evil.example.com"))",
                    "the token is not the push subscription's service account"
                ),
                (
                    "Bearer \(pipeline.stub.googlePlay.pushToken(audience: audience, issuedAt: Date().addingTimeInterval(-7200)))",
                    "the token has expired or is not valid yet"
                ),
                ("Bearer \(PipelineHarness.token)", "the token is not a JWT"),
            ]
            for (authorization, reason) in cases {
                let (status, answer) = try await pipeline.pushGoogle(
                    notice, messageID: "666", authorization: .some(authorization))
                let error = answer["error"] as? [String: Any]
                #expect(status == 401, "\(reason)")
                #expect(error?["code"] as? String == "unauthorized", "\(answer)")
                #expect((error?["message"] as? String)?.hasSuffix(reason) == true, "\(answer)")
            }
            #expect(try await ReceiptRepository(pipeline.database).notificationStatusCounts().values.reduce(0, +) == 0)

            // A good token with a body that is no notification: 400, naming the member, nothing stored
            let bad: [([String: Any], String)] = [
                (["packageName": PipelineHarness.googlePackage], "message.data.subscriptionNotification"),
                (
                    PipelineHarness.developerNotification("subscriptionNotification", ["notificationType": 2]),
                    "message.data.subscriptionNotification.purchaseToken"
                ),
                (["testNotification": ["version": "1.0"]], "message.data.packageName"),
            ]
            for (notification, field) in bad {
                let (status, answer) = try await pipeline.pushGoogle(notification, messageID: "667")
                let error = answer["error"] as? [String: Any]
                #expect(status == 400 && error?["code"] as? String == "invalid_push", "\(answer)")
                #expect(error?["field"] as? String == field, "\(answer)")
            }
            #expect(try await ReceiptRepository(pipeline.database).notificationStatusCounts().values.reduce(0, +) == 0)

            // And the test notification Play Console sends is taken, and changes nothing
            let (status, accepted) = try await pipeline.pushGoogle(notice, messageID: "668")
            #expect(status == 200)
            let details = try await settled(pipeline, try #require(accepted["notification_id"] as? String))
            #expect(
                details?.status == .applied && details?.type == "TEST_NOTIFICATION", "\(String(describing: details))")
        }
    }

    @Test func theStubRenewsAndPushesOverHTTPAsAnIapUpUserWould() async throws {
        try await PipelineHarness.run { pipeline in
            // Given a subscription registered at the stub over HTTP, and bought by the backend
            func stub(_ path: String, _ object: [String: Any]) async throws -> (Int, [String: Any]) {
                let response = try await pipeline.client.execute(
                    HTTPClient.HTTPRequest(
                        method: .post, url: "http://127.0.0.1:\(pipeline.stubPort)\(path)",
                        body: Array(try JSONSerialization.data(withJSONObject: object))))
                return (
                    response.status,
                    (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
                )
            }
            let firstEnd = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())
            _ = try await stub(
                "/stub/google/purchases",
                [
                    "purchase_token": "sub-http", "product_id": Self.vip, "kind": "subscription",
                    "order_id": "GPA.4444-0000-1111-22222", "expiry_time": Self.iso(firstEnd),
                ])
            #expect(try await credited(pipeline, account: "android-http", token: "sub-http", product: Self.vip))

            // When the stub renews it and pushes the notice to the intake
            let renewedEnd = firstEnd.addingTimeInterval(86_400)
            let (renewed, _) = try await stub(
                "/stub/google/renewals",
                [
                    "purchase_token": "sub-http", "order_id": "GPA.4444-0000-1111-22222..0",
                    "expiry_time": Self.iso(renewedEnd),
                ])
            #expect(renewed == 200)
            let (status, pushed) = try await stub(
                "/stub/google/notifications",
                [
                    "url": pipeline.googleNotificationURL, "audience": PipelineHarness.pushAudience,
                    "notification": PipelineHarness.developerNotification(
                        "subscriptionNotification",
                        ["notificationType": 2, "purchaseToken": "sub-http", "subscriptionId": Self.vip]),
                ])

            // Then the intake took it, and the entitlement runs to the renewal's end
            #expect(status == 200 && pushed["status"] as? Int == 200, "\(pushed)")
            #expect(await eventually { (try? await entitlementEnd(pipeline, "android-http")) == renewedEnd })
            // And a push the intake refuses is reported as such
            let (_, refused) = try await stub(
                "/stub/google/notifications",
                [
                    "url": pipeline.googleNotificationURL,
                    "notification": PipelineHarness.developerNotification("testNotification", [:]),
                ])
            #expect(refused["status"] as? Int == 401, "\(refused)")
        }
    }
}
