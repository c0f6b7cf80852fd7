import Foundation
import GooglePlay
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

/// The ways money moves, each as one app's event against ``TenancyPipeline`` that waits until
/// it moved that app's money (``TenancyMatrixTests``), and the events no app's credential proves.
enum TenancyWays {
    typealias T = TenancyPipeline

    /// Each app's player-1 holding 100 coins of its own, by its own Apple receipt.
    static func seed(_ apps: T) async throws {
        for (token, bundle) in [(ProcessPipeline.token, PipelineHarness.bundleID), (T.racerToken, T.racerBundle)] {
            let posted = try await apps.call(
                .post, "/v1/receipts", token: token,
                body: [
                    "account_id": "player-1",
                    "receipt_data": apps.pipeline.receipt(transaction: "seed-\(bundle)", bundleID: bundle),
                ])
            let id = try #require(posted.json["receipt_id"] as? String, "\(posted.json)")
            #expect(try await apps.finalReceipt(id, token: token)["status"] as? String == "credited")
        }
    }

    /// Posts `body` with the app's backend `token` for player-1 and waits until it is credited.
    static func credited(_ apps: T, token: String, _ body: [String: Any]) async throws {
        var body = body
        body["account_id"] = "player-1"
        let posted = try await apps.call(.post, "/v1/receipts", token: token, body: body)
        let id = try #require(posted.json["receipt_id"] as? String, "\(posted.json)")
        let receipt = try await apps.finalReceipt(id, token: token)
        #expect(receipt["status"] as? String == "credited", "\(receipt)")
    }

    /// Waits until `account` of the app of `token` holds `coins`.
    static func holds(_ apps: T, _ account: String, token: String, _ coins: Int) async {
        let reached = await eventually(timeout: .seconds(60)) {
            (try? await apps.coins(account, token: token)) == coins
        }
        #expect(reached, "\(account) never held \(coins): \(apps.pipeline.logs().suffix(1500))")
    }

    // MARK: - Receipts

    static func appleReceipt(_ apps: T) async throws {
        try await credited(
            apps, token: T.racerToken,
            ["receipt_data": apps.pipeline.receipt(transaction: "matrix-legacy", bundleID: T.racerBundle)])
    }

    static func appleSignedTransaction(_ apps: T) async throws {
        let signed = apps.stub.storeKit.signTransaction(
            StubTransaction(transactionID: "matrix-sk2", productID: "com.example.coins100"), app: T.racerBundle)
        try await credited(apps, token: T.racerToken, ["signed_transaction": signed])
    }

    static func googlePurchase(_ apps: T) async throws {
        apps.stub.googlePlay.register(
            token: "matrix-play",
            ProductPurchaseV2(
                productLineItem: [.init(productId: "com.example.coins100", productOfferDetails: .init(quantity: 1))],
                purchaseState: "PURCHASED", orderId: "GPA.9999-0000-1111-00001"))
        try await credited(
            apps, token: T.racerToken,
            [
                "google_play": [
                    "package_name": T.racerPackage, "product_id": "com.example.coins100",
                    "purchase_token": "matrix-play",
                ]
            ])
    }

    static func huaweiPurchase(_ apps: T) async throws {
        apps.stub.huawei.register(
            StubHuawei.Purchase(
                token: "matrix-hw", productID: "com.example.coins100", kind: .consumable, orderID: "HW.MATRIX.1"))
        try await credited(
            apps, token: ProcessPipeline.token,
            [
                "huawei": [
                    "product_id": "com.example.coins100", "purchase_token": "matrix-hw", "type": "consumable",
                ]
            ])
    }

    /// Puzzle's Xiaomi order, posted by its backend and confirmed with puzzle's Xiaomi credentials.
    static func xiaomiOrder(_ apps: T) async throws {
        apps.stub.xiaomi.pay(cpOrderID: "matrix-mi-1", uid: "100010", productCode: "com.example.coins100", payFee: 600)
        try await credited(
            apps, token: ProcessPipeline.token,
            ["xiaomi": ["app_id": StubXiaomi.appID, "cp_order_id": "matrix-mi-1", "uid": "100010"]])
    }

    /// Xiaomi notifies puzzle's payment for its player-1 (named in `cpUserInfo`), signed with puzzle's secret.
    static func xiaomiNotice(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: ProcessPipeline.token)
        apps.stub.xiaomi.pay(
            cpOrderID: "matrix-mi-2", uid: "100010", productCode: "com.example.coins100", payFee: 600,
            cpUserInfo: "player-1")
        let status = try await xiaomiGet(apps, try #require(apps.stub.xiaomi.notice(cpOrderID: "matrix-mi-2")))
        #expect(status == 200)
        await holds(apps, "player-1", token: ProcessPipeline.token, before + 100)
    }

    /// A notice signed with a secret no app has.
    static func xiaomiForgedNotice(_ apps: T) async throws -> Int {
        try await xiaomiGet(apps, try #require(apps.stub.xiaomi.notice(cpOrderID: "matrix-mi-2", forged: true)))
    }

    private static func xiaomiGet(_ apps: T, _ query: String) async throws -> Int {
        try await apps.pipeline.client.execute(.init(url: "\(apps.intake)/v1/xiaomi/notifications?\(query)")).status
    }

    /// Puzzle's Amazon purchase, posted by its backend and read back from RVS with puzzle's secret.
    static func amazonPurchase(_ apps: T) async throws {
        let bought = apps.stub.amazon.buy(userID: "matrix-amzn", productID: "com.example.coins100")
        try await credited(
            apps, token: ProcessPipeline.token, ["amazon": ["user_id": "matrix-amzn", "receipt_id": bought.receiptID]])
    }

    /// Amazon refunds puzzle's purchase and SNS posts the notification: taken back from puzzle's player-1.
    static func amazonRefundNotice(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: ProcessPipeline.token)
        let receipt = try #require(apps.stub.amazon.receipts(ofUser: "matrix-amzn").last?.receiptID)
        apps.stub.amazon.cancel(receipt, at: Date().addingTimeInterval(-1))
        let (status, answer) = try await apps.notify(
            "amazon", body: apps.stub.amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt).body)
        #expect(status == 200 && answer["notification_id"] != nil, "\(answer)")
        await holds(apps, "player-1", token: ProcessPipeline.token, before - 100)
    }

    /// A notification signed by a key not SNS's certificate's.
    static func amazonForgedNotice(_ apps: T) async throws -> Int {
        let receipt = try #require(apps.stub.amazon.receipts(ofUser: "matrix-amzn").last?.receiptID)
        return try await apps.notify(
            "amazon", body: apps.stub.amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt, forged: true).body
        ).status
    }

    /// A receipt posted with a backend token no app has: no app's credential proves it.
    static func foreignToken(_ apps: T) async throws -> Int {
        try await apps.call(
            .post, "/v1/receipts", token: "stranger-token-0123456789",
            body: ["account_id": "player-1", "receipt_data": apps.pipeline.receipt(transaction: "matrix-stranger")]
        ).status
    }

    // MARK: - Notifications

    /// Apple refunds racer's StoreKit 2 purchase: its signed notification takes it back from racer's player-1.
    static func appleRefundNotice(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: T.racerToken)
        var refunded = StubTransaction(transactionID: "matrix-sk2", productID: "com.example.coins100")
        refunded.revocationDate = Date()
        let notice = apps.stub.storeKit.signNotification(type: .refund, transaction: refunded, app: T.racerBundle)
        #expect(try await apps.stub.storeKit.send(notice, to: "\(apps.intake)/v1/apple/notifications") == 200)
        await holds(apps, "player-1", token: T.racerToken, before - 100)
    }

    /// A notification Apple signed for a bundle no app has.
    static func appleStrangerNotice(_ apps: T) async throws -> Int {
        let notice = apps.stub.storeKit.signNotification(
            type: .refund, transaction: StubTransaction(transactionID: "seed-com.example.game", productID: "x"),
            app: "com.example.stranger")
        return try await apps.stub.storeKit.send(notice, to: "\(apps.intake)/v1/apple/notifications")
    }

    /// Google voids racer's Play purchase and pushes the notice to racer's subscription.
    static func googleVoidedPush(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: T.racerToken)
        let play = apps.stub.googlePlay
        play.void(token: "matrix-play", at: Date().addingTimeInterval(-1))
        let pushed = try await play.push(
            voidedNotice(), to: AppsEndToEndTests.googlePushURL(apps.pipeline),
            audience: AppsEndToEndTests.racerPushAudience, email: AppsEndToEndTests.racerPushAccount,
            http: apps.pipeline.client)
        #expect(pushed.status == 200)
        await holds(apps, "player-1", token: T.racerToken, before - 100)
    }

    static func voidedNotice() -> [String: Any] {
        [
            "version": "1.0", "packageName": T.racerPackage,
            "eventTimeMillis": String(Int64(Date().timeIntervalSince1970 * 1000)),
            "voidedPurchaseNotification": [
                "purchaseToken": "matrix-play", "orderId": "GPA.9999-0000-1111-00001", "productType": 2,
                "refundType": 1,
            ],
        ]
    }

    /// The same push for an audience no app has.
    static func googleStrangerPush(_ apps: T) async throws -> Int {
        try await apps.stub.googlePlay.push(
            voidedNotice(), to: AppsEndToEndTests.googlePushURL(apps.pipeline),
            audience: "https://elsewhere.example.com/push", email: AppsEndToEndTests.racerPushAccount,
            http: apps.pipeline.client
        ).status
    }

    /// Huawei refunds puzzle's purchase: its unsigned order notice, read back, takes it back.
    static func huaweiRefundNotice(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: ProcessPipeline.token)
        #expect(apps.stub.huawei.refund(token: "matrix-hw", at: Date().addingTimeInterval(-1)))
        let (status, answer) = try await apps.notify(
            "huawei", body: Array(apps.stub.huawei.orderNotification(type: 2, token: "matrix-hw")))
        #expect(status == 200 && answer["notification_id"] != nil, "\(answer)")
        await holds(apps, "player-1", token: ProcessPipeline.token, before - 100)
    }

    /// A subscription notice whose signature is not the app's key.
    static func huaweiForgedNotice(_ apps: T) async throws -> Int {
        try await apps.notify(
            "huawei", body: Array(apps.stub.huawei.subscriptionNotification(type: 1, token: "matrix-hw", forged: true))
        ).status
    }

    /// Racer's Stripe account sells 100 coins to its player-1 on the web.
    static func stripePayment(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: T.racerToken)
        let paid = apps.stub.stripe.createSession(
            account: "player-1", lookupKey: "com.example.coins100", in: T.racerStripeKey)
        let event = try #require(
            apps.stub.stripe.signedEvent(
                "checkout.session.completed", object: paid.session, secret: T.racerStripeSecret))
        let (status, _) = try await apps.notify(
            "stripe", body: event.body, headers: [(name: "Stripe-Signature", value: event.signature)])
        #expect(status == 200)
        await holds(apps, "player-1", token: T.racerToken, before + 100)
    }

    /// An event signed with a secret no app has.
    static func stripeForgedEvent(_ apps: T) async throws -> Int {
        let paid = apps.stub.stripe.createSession(account: "player-1", lookupKey: "com.example.coins100")
        let event = try #require(
            apps.stub.stripe.signedEvent("checkout.session.completed", object: paid.session, secret: "whsec_nobody"))
        return try await apps.notify(
            "stripe", body: event.body, headers: [(name: "Stripe-Signature", value: event.signature)]
        ).status
    }

    // MARK: - Other ways

    /// Racer's order for its player-2, paid by a StoreKit 2 purchase carrying its token.
    static func orderToken(_ apps: T) async throws {
        let order = try await apps.call(
            .post, "/v1/orders", token: T.racerToken,
            body: ["account_id": "player-2", "product_id": "com.example.coins100"])
        let token = try #require(order.json["app_account_token"] as? String, "\(order.json)")
        let signed = apps.stub.storeKit.signTransaction(
            StubTransaction(transactionID: "matrix-token", productID: "com.example.coins100", appAccountToken: token),
            app: T.racerBundle)
        try await credited(apps, token: T.racerToken, ["signed_transaction": signed])
    }

    /// An operator grants racer's player-1 five coins.
    static func operatorGrant(_ apps: T) async throws {
        let before = try await apps.coins("player-1", token: T.racerToken)
        let granted = try await IAPProcess.run(
            [
                "account", "adjust", "player-1", "--app", "racer", "--currency", "coins", "--amount", "5", "--reason",
                "matrix",
            ], environment: apps.pipeline.environment)
        #expect(granted.status == 0, "\(granted.output)")
        await holds(apps, "player-1", token: T.racerToken, before + 5)
    }

    /// Puzzle's Huawei consumable confirmed with puzzle's credentials, once credited.
    static func huaweiConfirmation(_ apps: T) async throws {
        let confirmed = await eventually(timeout: .seconds(60)) {
            apps.stub.huawei.stats.confirmed.contains("matrix-hw")
        }
        #expect(confirmed, "\(apps.stub.huawei.stats)")
    }
}
