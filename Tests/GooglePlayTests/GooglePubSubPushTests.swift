import Foundation
import GooglePlay
import PipelineCore
import Testing

/// A Pub/Sub push of a real-time developer notification: read as Google documents it, and
/// anything else refused naming the member at fault.
@Suite struct GooglePubSubPushTests {
    static func body(_ notification: Any, messageID: Any = "136969346945") -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: notification)) ?? Data()
        let envelope: [String: Any] = [
            "message": [
                "data": data.base64EncodedString(), "messageId": messageID, "publishTime": "2026-11-25T10:00:00Z",
            ],
            "subscription": "projects/p/subscriptions/s",
        ]
        return Array((try? JSONSerialization.data(withJSONObject: envelope)) ?? Data())
    }

    static let package = "com.example.game"

    @Test func eachKindIsReadWithWhatItNames() throws {
        let renewed = try GooglePubSubPush.notice(
            from: Self.body([
                "version": "1.0", "packageName": Self.package, "eventTimeMillis": "1764064800000",
                "subscriptionNotification": [
                    "version": "1.0", "notificationType": 2, "purchaseToken": "tok-1", "subscriptionId": "vip",
                ],
            ]))
        #expect(renewed.messageID == "136969346945" && renewed.packageName == Self.package)
        #expect(renewed.kind == .subscription && renewed.notificationType == 2 && renewed.purchaseToken == "tok-1")
        #expect(renewed.productID == "vip" && renewed.typeName == "SUBSCRIPTION_RENEWED")
        #expect(renewed.eventTime == Date(timeIntervalSince1970: 1_764_064_800))
        #expect(GoogleNotice(canonicalJSON: renewed.canonicalJSON) == renewed)

        let bought = try GooglePubSubPush.notice(
            from: Self.body([
                "packageName": Self.package, "eventTimeMillis": 1_764_064_800_000,
                "oneTimeProductNotification": ["notificationType": "1", "purchaseToken": "tok-2", "sku": "coins"],
            ]))
        #expect(bought.kind == .oneTimeProduct && bought.typeName == "ONE_TIME_PRODUCT_PURCHASED")
        #expect(bought.productID == "coins" && bought.eventTime != nil)

        let voided = try GooglePubSubPush.notice(
            from: Self.body([
                "packageName": Self.package,
                "voidedPurchaseNotification": [
                    "purchaseToken": "tok-3", "orderId": "GPA.1-2", "productType": 2, "refundType": 1,
                ],
            ]))
        #expect(voided.kind == .voidedPurchase && voided.orderID == "GPA.1-2" && voided.refundType == 1)
        #expect(voided.typeName == "VOIDED_PURCHASE")

        let test = try GooglePubSubPush.notice(
            from: Self.body(["packageName": Self.package, "testNotification": ["version": "1.0"]]))
        #expect(test.kind == .test && test.purchaseToken == nil && test.typeName == "TEST_NOTIFICATION")
    }

    @Test(arguments: [
        (2, "SUBSCRIPTION_RENEWED", StoreNotification.Kind.didRenew),
        (1, "SUBSCRIPTION_RECOVERED", .didRenew),
        (7, "SUBSCRIPTION_RESTARTED", .didRenew),
        (4, "SUBSCRIPTION_PURCHASED", .subscribed),
        (6, "SUBSCRIPTION_IN_GRACE_PERIOD", .didFailToRenew),
        (12, "SUBSCRIPTION_REVOKED", .revoke),
        (13, "SUBSCRIPTION_EXPIRED", .expired),
    ])
    func subscriptionTypesMeanWhatApplesDo(_ type: Int, _ name: String, _ kind: StoreNotification.Kind) {
        let notice = GoogleNotice(
            messageID: "1", packageName: Self.package, kind: .subscription, notificationType: type)
        #expect(notice.typeName == name)
        #expect(StoreNotification(notificationUUID: "1", type: name).type == kind)
    }

    @Test func typesThatChangeNothingYetAreRecordedByName() {
        for (type, name) in [
            (3, "SUBSCRIPTION_CANCELED"), (5, "SUBSCRIPTION_ON_HOLD"), (10, "SUBSCRIPTION_PAUSED"),
            (99, "SUBSCRIPTION_99"),
        ] {
            let notice = GoogleNotice(
                messageID: "1", packageName: Self.package, kind: .subscription, notificationType: type)
            #expect(notice.typeName == name)
            #expect(StoreNotification(notificationUUID: "1", type: name).type == nil)
        }
        let cancelled = GoogleNotice(
            messageID: "1", packageName: Self.package, kind: .oneTimeProduct, notificationType: 2)
        #expect(cancelled.typeName == "ONE_TIME_PRODUCT_CANCELED")
        #expect(StoreNotification(notificationUUID: "1", type: cancelled.typeName).type == nil)
    }

    @Test func aBodyThatIsNoNotificationIsRefusedNamingTheMember() {
        let good: [String: Any] = [
            "packageName": Self.package,
            "subscriptionNotification": ["notificationType": 2, "purchaseToken": "tok"],
        ]
        func without(_ key: String) -> [String: Any] {
            var inner = good["subscriptionNotification"] as! [String: Any]
            inner[key] = nil
            return ["packageName": Self.package, "subscriptionNotification": inner]
        }
        let cases: [([UInt8], String)] = [
            (Array("[1]".utf8), ""),
            (Array(#"{"subscription": "s"}"#.utf8), "message"),
            (Array(#"{"subscription": {}, "message": {"messageId": "1", "data": ""}}"#.utf8), "subscription"),
            (Array(#"{"message": {"messageId": "1", "data": "", "attributes": []}}"#.utf8), "message.attributes"),
            (Self.body(good, messageID: ""), "message.messageId"),
            (Self.body(good, messageID: 42), "message.messageId"),
            (Array(#"{"message": {"messageId": "1", "data": "!!"}}"#.utf8), "message.data"),
            (Array(#"{"message": {"messageId": "1", "data": "bm90IGpzb24="}}"#.utf8), "message.data"),
            (Self.body(["subscriptionNotification": good["subscriptionNotification"]!]), "message.data.packageName"),
            (Self.body(["packageName": Self.package]), "message.data.subscriptionNotification"),
            (
                Self.body([
                    "packageName": Self.package, "subscriptionNotification": good["subscriptionNotification"]!,
                    "testNotification": ["version": "1.0"],
                ]), "message.data.subscriptionNotification"
            ),
            (Self.body(without("purchaseToken")), "message.data.subscriptionNotification.purchaseToken"),
            (Self.body(without("notificationType")), "message.data.subscriptionNotification.notificationType"),
            (
                Self.body(["packageName": Self.package, "voidedPurchaseNotification": ["purchaseToken": "tok"]]),
                "message.data.voidedPurchaseNotification.orderId"
            ),
            // A control character (NUL truncates in every C API it reaches) in what is stored
            (Self.body(good, messageID: "136\u{0}969"), "message.messageId"),
            (
                Self.body(["packageName": "com.example\u{0}.game", "testNotification": ["version": "1.0"]]),
                "message.data.packageName"
            ),
            (
                Self.body([
                    "packageName": Self.package,
                    "subscriptionNotification": ["notificationType": 2, "purchaseToken": "tok\u{1B}[2J"],
                ]), "message.data.subscriptionNotification.purchaseToken"
            ),
            (
                Self.body([
                    "packageName": Self.package,
                    "oneTimeProductNotification": ["notificationType": 1, "purchaseToken": "tok", "sku": "c\u{0}"],
                ]), "message.data.oneTimeProductNotification.subscriptionId"
            ),
            (
                Self.body([
                    "packageName": Self.package,
                    "voidedPurchaseNotification": ["purchaseToken": "tok", "orderId": "GPA.1\u{0}"],
                ]), "message.data.voidedPurchaseNotification.orderId"
            ),
        ]
        for (body, field) in cases {
            do {
                let notice = try GooglePubSubPush.notice(from: body)
                Issue.record("\(field): taken as \(notice)")
            } catch {
                #expect(error.field == field, "\(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }
}
