import Foundation
import Huawei
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// Version 2 server notifications: authenticated at the intake by the IAP public key,
/// refused with the member at fault, and made the engine's notifications by reading the
/// purchase back from the stub.
@Suite struct HuaweiNotificationTests {
    func accept(_ fixture: HuaweiFixture, _ body: Data) async throws -> InboundNotification {
        try await fixture.huawei().notification(InboundRequest(headers: [:], body: Array(body)))
    }

    func applied(_ fixture: HuaweiFixture, _ body: Data) async throws -> VerificationOutcome {
        let inbound = try await accept(fixture, body)
        return try await fixture.huawei().verifier(fixture.context()).verify(.huawei(inbound.evidence))
    }

    @Test(arguments: [true, false])
    func aRenewalIsDidRenewWithTheRenewedTransaction(pss: Bool) async throws {
        try await HuaweiFixture.run { fixture in
            // Given a subscription Huawei renewed with a new order
            let expiry = Date(timeIntervalSince1970: 1_795_000_000)
            fixture.stub.register(
                .init(token: "sub-1", productID: "vip", kind: .subscription, orderID: "o-1", subscriptionID: "s-1"))
            fixture.stub.renew(token: "sub-1", order: "o-2", until: expiry)
            let body = fixture.stub.subscriptionNotification(type: 2, token: "sub-1", pss: pss)

            // When it is pushed, twice
            let first = try await accept(fixture, body)
            let again = try await accept(fixture, body)

            // Then it is one notification, and it renews the subscription as Huawei reads it now
            #expect(first == again && first.messageID.count == 40 && first.evidence.kind == "notification")
            let hex = first.messageID.allSatisfy { $0.isHexDigit }
            #expect(hex, "one prefix, the intake's: \(first.messageID)")
            guard case .notification(let notification) = try await applied(fixture, body) else {
                Issue.record("not a notification")
                return
            }
            #expect(notification.type == .didRenew && notification.rawType == "DID_RENEW")
            #expect(notification.subtype == "RENEWAL" && notification.environment == "Production")
            #expect(notification.notificationUUID == first.messageID)
            #expect(notification.transaction?.transactionID == "huawei:o-2")
            #expect(notification.transaction?.originalTransactionID == "huawei:s-1")
            #expect(notification.transaction?.expiresDate == expiry)
        }
    }

    @Test func aRefundedOrderIsARefund() async throws {
        try await HuaweiFixture.run { fixture in
            let at = Date(timeIntervalSince1970: 1_791_000_000)
            fixture.stub.register(.init(token: "tok-1", productID: "coins_100", kind: .consumable, orderID: "o-1"))
            fixture.stub.refund(token: "tok-1", at: at)
            guard
                case .notification(let notification) = try await applied(
                    fixture, fixture.stub.orderNotification(type: 2, token: "tok-1"))
            else {
                Issue.record("not a notification")
                return
            }
            #expect(notification.type == .refund && notification.subtype == "REFUND_SUCCESS")
            #expect(notification.transaction?.transactionID == "huawei:o-1")
            #expect(notification.transaction?.cancellationDate == at)
            #expect(notification.transaction?.confirmation == nil)
        }
    }

    @Test(
        arguments: [
            (9, "EXPIRED", "ON_HOLD"), (1, "REFUND", "CANCEL"), (0, "SUBSCRIBED", "INITIAL_BUY"),
            (5, "RENEWAL_STOPPED", nil), (42, "SUBSCRIPTION_42", nil),
        ] as [(Int, String, String?)])
    func eachTypeIsNamed(type: Int, rawType: String, subtype: String?) async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "sub-1", productID: "vip", kind: .subscription, subscriptionID: "s-1"))
            // A cancellation by Huawei that refunded reads back as refunded
            if type == 1 { fixture.stub.refund(token: "sub-1", at: Date(timeIntervalSince1970: 1_791_000_000)) }
            let body = fixture.stub.subscriptionNotification(type: type, token: "sub-1")
            guard case .notification(let notification) = try await applied(fixture, body) else {
                Issue.record("not a notification")
                return
            }
            #expect(notification.rawType == rawType && notification.subtype == subtype)
            #expect(notification.transaction?.productID == "vip")
        }
    }

    @Test func aForgedSignatureIsUnauthorized() async throws {
        try await HuaweiFixture.run { fixture in
            fixture.stub.register(.init(token: "sub-1", productID: "vip", kind: .subscription))
            let body = fixture.stub.subscriptionNotification(type: 2, token: "sub-1", forged: true)
            let error = await #expect(throws: StoreInputError.self) { _ = try await accept(fixture, body) }
            #expect(error?.status == 401 && error?.code == "unauthorized")
        }
    }

    @Test func malformedBodiesNameTheMember() async throws {
        try await HuaweiFixture.run { fixture in
            let stub = fixture.stub
            func signed(_ status: [String: Any]) -> [String: Any] {
                let text = String(decoding: try! JSONSerialization.data(withJSONObject: status), as: UTF8.self)
                return [
                    "version": "v2", "eventType": "SUBSCRIPTION",
                    "subNotification": [
                        "statusUpdateNotification": text, "notificationSignature": stub.sign(text, pss: true),
                        "signatureAlgorithm": "SHA256WithRSA/PSS",
                    ],
                ]
            }
            let order: [String: Any] = ["notificationType": 1, "purchaseToken": "t", "productId": "p"]
            let status: [String: Any] = ["notificationType": 2, "subscriptionId": "s", "purchaseToken": "t"]
            let table: [(Any, String)] = [
                ("not json", "body"),
                (["eventType": "ORDER", "version": "v1", "orderNotification": order], "version"),
                (["eventType": "REFUND"], "eventType"),
                ([String: Any](), "eventType"),
                (["eventType": "ORDER"], "orderNotification"),
                (
                    ["eventType": "ORDER", "orderNotification": order.merging(["notificationType": "x"]) { $1 }],
                    "orderNotification.notificationType"
                ),
                (
                    ["eventType": "ORDER", "orderNotification": order.merging(["notificationType": false]) { $1 }],
                    "orderNotification.notificationType"
                ),
                (
                    ["eventType": "ORDER", "orderNotification": order.filter { $0.key != "purchaseToken" }],
                    "orderNotification.purchaseToken"
                ),
                (
                    ["eventType": "ORDER", "orderNotification": order.merging(["productId": 7]) { $1 }],
                    "orderNotification.productId"
                ),
                (["eventType": "SUBSCRIPTION", "subNotification": "x"], "subNotification"),
                (
                    ["eventType": "SUBSCRIPTION", "subNotification": ["notificationSignature": "c2ln"]],
                    "subNotification.statusUpdateNotification"
                ),
                (
                    ["eventType": "SUBSCRIPTION", "subNotification": ["statusUpdateNotification": "{}"]],
                    "subNotification.notificationSignature"
                ),
                (
                    signed(status.filter { $0.key != "notificationType" }),
                    "subNotification.statusUpdateNotification.notificationType"
                ),
                (
                    signed(status.filter { $0.key != "subscriptionId" }),
                    "subNotification.statusUpdateNotification.subscriptionId"
                ),
                (
                    signed(status.filter { $0.key != "purchaseToken" }),
                    "subNotification.statusUpdateNotification.purchaseToken"
                ),
            ]
            for (body, member) in table {
                let bytes = try (body as? String).map { Data($0.utf8) } ?? JSONSerialization.data(withJSONObject: body)
                let error = await #expect(throws: StoreInputError.self) { _ = try await accept(fixture, bytes) }
                #expect(error?.status == 400 && error?.member == member, "\(member): \(String(describing: error))")
            }
        }
    }
}
