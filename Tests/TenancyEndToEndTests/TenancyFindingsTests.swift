import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The attacker probe's findings (issue 53), each reproduced as it was found, against a
/// running pipeline of two apps: every stage its own `iap` process, the real broker, both
/// databases. Each failed on the release before the fix.
@Suite struct TenancyFindingsTests {
    typealias T = TenancyPipeline

    /// 1. Racer's order token in puzzle's StoreKit 2 purchase credits puzzle's own player, and
    /// racer's account hears nothing; the token is no oracle, and the nil UUID no token.
    @Test(arguments: TestBackend.allCases) func anotherAppsTokenInAPurchaseBindsNothing(_ backend: TestBackend)
        async throws
    {
        try await T.run(backend) { apps in
            // Given racer's order for its player-x, with its app account token
            let order = try await apps.call(
                .post, "/v1/orders", token: T.racerToken,
                body: ["account_id": "player-x", "product_id": "com.example.coins100"])
            #expect(order.status == 201, "\(order.json)")
            let token = try #require(order.json["app_account_token"] as? String, "\(order.json)")

            // When puzzle posts its own StoreKit 2 purchase carrying that token, for its player-1
            let signed = apps.stub.storeKit.signTransaction(
                StubTransaction(
                    transactionID: "tenancy-sk2-1", productID: "com.example.coins100", appAccountToken: token),
                app: PipelineHarness.bundleID)
            let posted = try await apps.call(
                .post, "/v1/receipts", token: ProcessPipeline.token,
                body: ["account_id": "player-1", "signed_transaction": signed])
            let id = try #require(posted.json["receipt_id"] as? String, "\(posted.json)")
            let receipt = try await apps.finalReceipt(id, token: ProcessPipeline.token)

            // Then puzzle's player-1 is credited by puzzle's catalog, racer's player-x nothing
            #expect(receipt["status"] as? String == "credited", "\(receipt)")
            #expect(try await apps.coins("player-1", token: ProcessPipeline.token) == 100)
            #expect(try await apps.coins("player-x", token: T.racerToken) == 0)
            // And racer's webhook announces nothing of puzzle's receipt
            #expect(await eventually { apps.puzzleHook.accepted.contains { $0.bodyString.contains(id) } })
            #expect(!apps.racerHook.received.contains { $0.bodyString.contains(id) })

            // And puzzle ordering with racer's token is told nothing of racer: the token is its own now
            let mine = try await apps.call(
                .post, "/v1/orders", token: ProcessPipeline.token,
                body: ["account_id": "player-2", "product_id": "com.example.coins100", "app_account_token": token])
            #expect(mine.status == 201 && mine.json["app_account_token"] as? String == token, "\(mine.json)")
            // And the nil UUID is nobody's token
            let null = try await apps.call(
                .post, "/v1/orders", token: ProcessPipeline.token,
                body: [
                    "account_id": "player-3", "product_id": "com.example.coins100",
                    "app_account_token": "00000000-0000-0000-0000-000000000000",
                ])
            let refusal = null.json["error"] as? [String: Any]
            #expect(null.status == 400 && refusal?["code"] as? String == "invalid_app_account_token", "\(null.json)")
        }
    }

    /// 2. An event signed with racer's Stripe secret is racer's: read with racer's key from
    /// racer's account and credited to racer's player; a puzzle-signed session naming
    /// `racer/player-x`, or HTML, credits nobody.
    @Test(arguments: TestBackend.allCases) func stripeEventsStayInTheAppWhoseSecretSignedThem(_ backend: TestBackend)
        async throws
    {
        try await T.run(backend) { apps in
            let stripe = apps.stub.stripe
            // Given a paid session of racer's Stripe account for its player-x
            let racerPaid = stripe.createSession(
                account: "player-x", lookupKey: "com.example.coins100", in: T.racerStripeKey)

            // When Stripe delivers its completion, signed with racer's endpoint secret
            let event = try #require(
                stripe.signedEvent(
                    "checkout.session.completed", object: racerPaid.session, secret: T.racerStripeSecret,
                    eventID: "evt_tenancy_racer"))
            let delivered = try await apps.notify(
                "stripe", body: event.body, headers: [(name: "Stripe-Signature", value: event.signature)])
            #expect(delivered.status == 200, "\(delivered.json)")
            let id = try #require(delivered.json["notification_id"] as? String)

            // Then it is racer's notification, read back with racer's key, crediting racer's player-x
            let details = try #require(try await apps.settledNotification(id))
            #expect(try await apps.app(ofNotification: id) == "racer")
            #expect(details.status == .applied && details.accountID == "racer/player-x", "\(details)")
            #expect(try await apps.coins("player-x", token: T.racerToken) == 100)
            #expect(try await apps.coins("player-x", token: ProcessPipeline.token) == 0)

            // When puzzle's own sessions name another app's account, or markup
            for (index, named) in ["racer/player-x", "<b>player</b>"].enumerated() {
                let session = stripe.createSession(account: named, lookupKey: "com.example.coins100")
                let forged = try #require(
                    stripe.signedEvent(
                        "checkout.session.completed", object: session.session, secret: T.puzzleStripeSecret,
                        eventID: "evt_tenancy_named_\(index)"))
                let answer = try await apps.notify(
                    "stripe", body: forged.body, headers: [(name: "Stripe-Signature", value: forged.signature)])
                let named = try #require(answer.json["notification_id"] as? String, "\(answer.json)")

                // Then nothing is credited to anyone
                let settled = try #require(try await apps.settledNotification(named))
                #expect(settled.reason == "invalid_store_account_id" && settled.accountID == nil, "\(settled)")
            }
            #expect(try await apps.coins("player-x", token: T.racerToken) == 100)
            #expect(try await LedgerRepository(apps.books).audit() == [])
        }
    }

    /// 3. An unsigned Huawei order notice of a refund, about a credited purchase Huawei still
    /// reads as bought, takes nothing back and tells nobody; 4. unsigned notices about
    /// purchases no app recorded are dropped without a store call or a row.
    @Test(arguments: TestBackend.allCases) func anUnsignedHuaweiNoticeMovesNoMoney(_ backend: TestBackend) async throws
    {
        try await T.run(backend) { apps in
            let huawei = apps.stub.huawei
            // Given puzzle's player-h credited 100 coins for a Huawei consumable
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-tenancy-1", productID: "com.example.coins100", kind: .consumable,
                    orderID: "HW.TENANCY.1"))
            let posted = try await apps.call(
                .post, "/v1/receipts", token: ProcessPipeline.token,
                body: [
                    "account_id": "player-h",
                    "huawei": [
                        "product_id": "com.example.coins100", "purchase_token": "hw-tenancy-1", "type": "consumable",
                    ],
                ])
            let receipt = try await apps.finalReceipt(
                try #require(posted.json["receipt_id"] as? String), token: ProcessPipeline.token)
            #expect(receipt["status"] as? String == "credited", "\(receipt)")

            // When anyone posts an unsigned ORDER notice of a refund (notificationType 2) for it
            let (status, answer) = try await apps.notify(
                "huawei", body: Array(huawei.orderNotification(type: 2, token: "hw-tenancy-1")))
            #expect(status == 200, "\(answer)")
            let notice = try #require(answer["notification_id"] as? String, "\(answer)")

            // Then Huawei's signed data, read back, says it is still bought: nothing moves
            let settled = try #require(try await apps.settledNotification(notice))
            #expect(settled.reason == "not_cancelled_by_store", "\(settled)")
            #expect(try await apps.coins("player-h", token: ProcessPipeline.token) == 100)
            #expect(!apps.puzzleHook.received.contains { $0.bodyString.contains("purchase.refunded") })

            // And a flood of unsigned notices about tokens no app recorded stores nothing and asks Huawei nothing
            let stored = try await apps.storedNotifications()
            let reads = huawei.stats.calls["orders.verify"]
            for index in 0..<40 {
                let (status, answer) = try await apps.notify(
                    "huawei", body: Self.orderNotice(type: 2, token: "hw-unknown-\(index)"))
                #expect(status == 200 && answer["ignored"] as? String == "unknown_purchase", "\(answer)")
            }
            #expect(try await apps.storedNotifications() == stored)
            #expect(huawei.stats.calls["orders.verify"] == reads)
            #expect(try await LedgerRepository(apps.books).audit() == [])
        }
    }

    /// An unsigned version 2 order notice, as anyone can post one.
    static func orderNotice(type: Int, token: String, product: String = "com.example.coins100") -> [UInt8] {
        let notice: [String: Any] = [
            "version": "v2", "eventType": "ORDER", "notifyTime": Int64(Date().timeIntervalSince1970 * 1000),
            "applicationId": StubHuawei.clientID,
            "orderNotification": [
                "version": "v2", "notificationType": type, "purchaseToken": token, "productId": product,
            ] as [String: Any],
        ]
        return Array((try? JSONSerialization.data(withJSONObject: notice)) ?? Data())
    }

    /// 7. Two apps' Pub/Sub topics number their messages alike: the same message id pushed to
    /// each app is two notifications, each applied in its own app.
    @Test(arguments: TestBackend.allCases) func oneGoogleMessageIdInTwoAppsIsTwoNotifications(_ backend: TestBackend)
        async throws
    {
        try await T.run(backend) { apps in
            let play = apps.stub.googlePlay
            let url = AppsEndToEndTests.googlePushURL(apps.pipeline)
            func testNotice(_ package: String) -> [String: Any] {
                [
                    "version": "1.0", "packageName": package,
                    "eventTimeMillis": String(Int64(Date().timeIntervalSince1970 * 1000)),
                    "testNotification": ["version": "1.0"],
                ]
            }
            // When Pub/Sub pushes message 4242 to puzzle's subscription, and 4242 to racer's
            let puzzle = try await play.push(
                testNotice(PipelineHarness.googlePackage), to: url, messageID: "4242", http: apps.pipeline.client)
            let racer = try await play.push(
                testNotice(T.racerPackage), to: url, audience: AppsEndToEndTests.racerPushAudience,
                email: AppsEndToEndTests.racerPushAccount, messageID: "4242", http: apps.pipeline.client)
            #expect(puzzle.status == 200 && racer.status == 200)

            // Then each is stored in its app, and each applied
            let rows = try await apps.books.snapshot { db in
                try await db.rows(
                    "SELECT id, app FROM store_notifications WHERE store = 'google' ORDER BY app")
            }
            #expect(try rows.map { try $0.get("app", as: String.self) } == ["", "racer"])
            for row in rows {
                let details = try await apps.settledNotification(try row.get("id"))
                #expect(details?.status == .applied, "\(String(describing: details))")
            }
        }
    }
}
