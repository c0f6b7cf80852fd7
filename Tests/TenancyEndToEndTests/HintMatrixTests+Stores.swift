import Foundation
import PipelineTesting
import StubStore
import Testing

@testable import EndToEndSupport

extension HintMatrixTests {
    // MARK: - Huawei: order notices unsigned, subscription notices signed, both read back

    /// Huawei's order notices carry no signature and its subscription notices its IAP key's:
    /// a forged subscription notice is refused, of each type; an order notice of a refund, or a
    /// signed cancellation, whose purchase Huawei reads back as still bought moves nothing.
    static func huawei(_ pipeline: PipelineHarness) async throws {
        let huawei = pipeline.stub.huawei
        huawei.register(
            StubHuawei.Purchase(
                token: "hint-hw", productID: "com.example.coins100", kind: .consumable, orderID: "HW.HINT.1"))
        huawei.register(
            StubHuawei.Purchase(
                token: "hint-hw-sub", productID: "com.example.vip.monthly", kind: .subscription,
                orderID: "HW.HINT.SUB.1", expirationDate: Date().addingTimeInterval(30 * 86_400)))
        for (token, type) in [("hint-hw", "consumable"), ("hint-hw-sub", "subscription")] {
            let (_, posted) = try await pipeline.submitHuawei(
                account: "hint-huawei", token: token, product: huawei.purchase(token: token)!.productID, type: type,
                subscriptionID: huawei.purchase(token: token)?.subscriptionID)
            let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
            #expect(final["status"] as? String == "credited", "\(final)")
        }
        func push(_ body: Data) async throws -> Int {
            try await pipeline.postStoreNotification("huawei", body: Array(body)).0
        }
        var hints: [Hint] = []
        for type in [1, 2] {
            hints.append(
                Hint("huawei order \(type) contradicted", [200]) {
                    try await push(huawei.orderNotification(type: type, token: "hint-hw"))
                })
        }
        for type in [0, 1, 2, 3, 5, 6, 7, 9, 10, 12, 13] {
            hints.append(
                Hint("huawei subscription \(type) forged", [401]) {
                    try await push(huawei.subscriptionNotification(type: type, token: "hint-hw-sub", forged: true))
                })
        }
        // A cancellation Huawei signed, of a subscription its Subscription service reads as running.
        hints.append(
            Hint("huawei subscription cancel contradicted", [200]) {
                try await push(huawei.subscriptionNotification(type: 1, token: "hint-hw-sub"))
            })
        try await ignored(pipeline, "hint-huawei", hints)
    }

    // MARK: - Stripe: events signed with the endpoint's secret, read back from Stripe

    /// Stripe signs each event with the endpoint's secret: one without a signature or under
    /// another secret is refused, of each type; a signed one that the objects read back from
    /// Stripe contradict (a charge not refunded, a dispute won, a session unpaid) moves nothing.
    static func stripe(_ pipeline: PipelineHarness) async throws {
        let stripe = pipeline.stub.stripe
        let paid = stripe.createSession(account: "hint-stripe", lookupKey: "com.example.coins100")
        let (status, answer) = try await pipeline.deliverStripe(
            "checkout.session.completed", object: paid.session, eventID: "evt_hint_paid")
        #expect(status == 200, "\(answer)")
        _ = try await pipeline.settledNotification(try #require(answer["notification_id"] as? String))
        let charge = try #require(paid.charge)
        let dispute = try #require(stripe.openDispute(charge: charge))
        stripe.closeDispute(dispute, status: "won")
        let unpaid = stripe.createSession(account: "hint-stripe", lookupKey: "com.example.coins100", paid: false)

        let events: [(type: String, object: String)] = [
            ("charge.refunded", charge), ("charge.dispute.funds_withdrawn", dispute),
            ("charge.dispute.closed", dispute), ("checkout.session.completed", unpaid.session),
            ("checkout.session.async_payment_succeeded", unpaid.session),
        ]
        var hints: [Hint] = []
        for (index, event) in events.enumerated() {
            let body = try #require(stripe.event(event.type, object: event.object, eventID: "evt_hint_\(index)"))
            hints.append(
                Hint("stripe \(event.type) unsigned", [401]) {
                    try await pipeline.postStoreNotification("stripe", body: body).0
                })
            hints.append(
                Hint("stripe \(event.type) forged", [401]) {
                    try await pipeline.deliverStripe(
                        event.type, object: event.object, eventID: "evt_hint_f\(index)",
                        secret: "whsec_forged_0123456789ab"
                    ).0
                })
            hints.append(
                Hint("stripe \(event.type) contradicted", [200]) {
                    try await pipeline.deliverStripe(event.type, object: event.object, eventID: "evt_hint_c\(index)").0
                })
        }
        try await ignored(pipeline, "hint-stripe", hints)
    }

    // MARK: - Xiaomi: notices signed with the app's secret, read back with its order query

    /// Xiaomi signs its notices with the app's `AppSecret`: an unsigned, forged or another app's
    /// notice is refused; one Xiaomi signed whose order its query contradicts (more paid than
    /// was), or that names another account for an order already credited, moves nothing.
    static func xiaomi(_ pipeline: PipelineHarness) async throws {
        let xiaomi = pipeline.stub.xiaomi
        let paid = xiaomi.pay(cpOrderID: "hint-mi", uid: "100010", productCode: "com.example.coins100", payFee: 600)
        let (_, posted) = try await pipeline.submitXiaomi(account: "hint-xiaomi", cpOrderID: "hint-mi")
        let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
        #expect(final["status"] as? String == "credited", "\(final)")

        func signed(_ change: (inout [String: String]) -> Void, by secret: String = StubXiaomi.appSecret) -> String {
            var parameters = paid.parameters
            change(&parameters)
            return StubXiaomi.notice(parameters, secret: secret)
        }
        let genuine = try #require(xiaomi.notice(cpOrderID: "hint-mi"))
        let unsigned = genuine.split(separator: "&").filter { !$0.hasPrefix("signature=") }.joined(separator: "&")
        let hints: [Hint] = [
            Hint("xiaomi unsigned", [401]) { try await pipeline.deliverXiaomi(unsigned).status },
            Hint("xiaomi forged", [401]) {
                try await pipeline.deliverXiaomi(try #require(xiaomi.notice(cpOrderID: "hint-mi", forged: true))).status
            },
            Hint("xiaomi another app's", [401]) {
                try await pipeline.deliverXiaomi(
                    signed({ $0["appId"] = "2882303761517000000" }, by: "another-secret")
                ).status
            },
            Hint("xiaomi contradicted", [200]) {
                try await pipeline.deliverXiaomi(
                    signed {
                        $0["productCount"] = "10"
                        $0["payFee"] = "6000"
                    }
                ).status
            },
            Hint("xiaomi another account", [200]) {
                try await pipeline.deliverXiaomi(signed { $0["cpUserInfo"] = "hint-thief" }).status
            },
        ]
        try await ignored(pipeline, "hint-xiaomi", hints)
        #expect(try await pipeline.balance("hint-thief") == 0)
    }

    // MARK: - Amazon: SNS-signed hints, read back from RVS

    /// SNS signs Amazon's notifications, but SNS's signature proves no app: a forged, stale or
    /// another app's notification is refused; one SNS signed whose cancellation RVS does not
    /// show, or that is about a purchase another account posted, moves nothing.
    static func amazon(_ pipeline: PipelineHarness) async throws {
        let amazon = pipeline.stub.amazon
        let bought = amazon.buy(userID: "hint-amzn", productID: "com.example.coins100")
        let (_, posted) = try await pipeline.submitAmazon(
            account: "hint-amazon", userID: "hint-amzn", receiptID: bought.receiptID)
        let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
        #expect(final["status"] as? String == "credited", "\(final)")
        let receipt = bought.receiptID
        var unsigned = amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt)
        unsigned.signature = Array("unsigned".utf8)
        let hints: [Hint] = [
            Hint("amazon unsigned", [401]) { try await pipeline.deliverAmazon(unsigned).0 },
            Hint("amazon forged", [401]) {
                try await pipeline.deliverAmazon(
                    amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt, forged: true)
                ).0
            },
            Hint("amazon stale", [401]) {
                try await pipeline.deliverAmazon(
                    amazon.notification(
                        "CONSUMABLE_CANCELLED", receiptID: receipt, sentAt: Date().addingTimeInterval(-7200))
                ).0
            },
            Hint("amazon another app's", [401]) {
                try await pipeline.deliverAmazon(
                    amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt, package: "com.example.another")
                ).0
            },
            Hint("amazon contradicted", [200]) {
                try await pipeline.deliverAmazon(amazon.notification("CONSUMABLE_CANCELLED", receiptID: receipt)).0
            },
            Hint("amazon purchase again", [200]) {
                try await pipeline.deliverAmazon(amazon.notification("CONSUMABLE_PURCHASED", receiptID: receipt)).0
            },
        ]
        try await ignored(pipeline, "hint-amazon", hints)
    }
}
