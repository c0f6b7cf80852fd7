import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Huawei AppGallery purchases through the plug-in seam: posted as the `huawei` member of
/// `POST /v1/receipts` or pushed as v2 server notifications to `POST /v1/huawei/notifications`,
/// read back from the (stub) Order and Subscription services by a validator, credited by the
/// engine every store shares, consumables confirmed with Huawei by the fulfiller; on the
/// real broker, both backends.
@Suite struct HuaweiEndToEndTests {
    static let coins = "com.example.coins100"
    static let vip = "com.example.vip.monthly"

    /// A moment in whole seconds (Huawei writes milliseconds; the database keeps what it is given).
    static func moment(_ offset: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + offset).rounded())
    }

    /// Posts Huawei's notification body; the status and the answer.
    func push(_ pipeline: PipelineHarness, _ body: Data) async throws -> (Int, [String: Any]) {
        try await pipeline.postStoreNotification("huawei", body: Array(body))
    }

    @Test(arguments: TestBackend.allCases) func aConsumableIsCreditedOnceAndConfirmedWithHuawei(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a consumable Huawei sold
            let huawei = pipeline.stub.huawei
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-coins-1", productID: Self.coins, kind: .consumable, orderID: "HW.ORDER.0001"))

            // When the backend posts it
            let (status, answer) = try await pipeline.submitHuawei(
                account: "huawei-1", token: "hw-coins-1", product: Self.coins)
            #expect(status == 202, "\(answer)")
            let receipt = try #require(answer["receipt_id"] as? String)
            let final = try await pipeline.finalStatus(receipt)

            // Then it is credited once, under Huawei's order id, with a webhook
            #expect(final["status"] as? String == "credited", "\(final)")
            #expect(final["kind"] as? String == "huawei.purchase", "\(final)")
            #expect(try await pipeline.balance("huawei-1") == 100)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "huawei-1")).ledger
            #expect(ledger.map(\.transactionID) == ["huawei:HW.ORDER.0001"])
            #expect(ledger.map(\.kind) == [.purchase] && ledger.map(\.receiptID) == [receipt])
            // at the price Huawei signed (`price` 199 is EUR 1.99, in the buyer's country)
            let revenue = try await RevenueRepository(pipeline.database).page(
                after: 0, since: Date(timeIntervalSince1970: 0), until: Date(timeIntervalSince1970: 4_102_444_800))
            #expect(revenue.map(\.entry.store) == ["huawei"] && revenue.map(\.entry.currency) == ["EUR"])
            #expect(revenue.map(\.entry.gross) == [199] && revenue.map(\.entry.proceeds) == [139])
            #expect(revenue.map(\.entry.country) == ["DE"] && revenue.map(\.entry.estimated) == [false])
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) {
                $0.bodyString.contains(receipt)
            }
            let webhook = try #require(pipeline.webhooks(for: receipt).first)
            #expect(webhook["type"] as? String == "receipt.credited", "\(webhook)")

            // And Huawei is told the consumable was delivered, once
            let confirmations = ConfirmationRepository(pipeline.database)
            let confirmed = await eventually {
                (try? await confirmations.confirmation(store: "huawei", transactionID: "huawei:HW.ORDER.0001"))??
                    .status == .done
            }
            #expect(confirmed)
            let row = try #require(
                try await confirmations.confirmation(store: "huawei", transactionID: "huawei:HW.ORDER.0001"))
            #expect(row.status == .done && row.attempts == 1 && row.receiptID == receipt && row.lastError == nil)
            #expect(row.payload.contains("\"purchase_token\":\"hw-coins-1\""), "\(row.payload)")
            #expect(huawei.stats.confirmed == ["hw-coins-1"])
            #expect(huawei.purchase(token: "hw-coins-1")?.confirmed == true)

            // When the same purchase is posted again, by the same account and by another
            let (again, resent) = try await pipeline.submitHuawei(
                account: "huawei-1", token: "hw-coins-1", product: Self.coins)
            #expect(again == 200 && resent["receipt_id"] as? String == receipt, "\(resent)")
            let (_, other) = try await pipeline.submitHuawei(
                account: "huawei-2", token: "hw-coins-1", product: Self.coins)
            let otherFinal = try await pipeline.finalStatus(try #require(other["receipt_id"] as? String))

            // Then nothing more is credited, and Huawei is not asked to confirm it again
            #expect(otherFinal["status"] as? String == "rejected", "\(otherFinal)")
            #expect(otherFinal["reason"] as? String == "already_credited", "\(otherFinal)")
            #expect(try await pipeline.balance("huawei-1") == 100)
            #expect(try await pipeline.balance("huawei-2") == 0)
            #expect(huawei.stats.calls["orders.verify"] == 2)
            #expect(huawei.stats.calls["orders.confirm"] == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func huaweiUnavailableIsRetriedThroughTheBrokerAndCreditedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given Huawei answering 503 to the first call, then 429 with Retry-After: 1
            let huawei = pipeline.stub.huawei
            huawei.configuration.withLock {
                $0.failFirst = 1
                $0.rateLimitFirst = 1
            }
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-coins-flaky", productID: Self.coins, kind: .consumable, orderID: "HW.ORDER.0004"))

            // When the backend posts the purchase
            let (_, posted) = try await pipeline.submitHuawei(
                account: "huawei-patient", token: "hw-coins-flaky", product: Self.coins)
            let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))

            // Then it is verified on the third attempt and credited once
            #expect(final["status"] as? String == "credited", "\(final)")
            #expect(final["attempts"] as? Int == 3, "\(final)")
            #expect(huawei.stats.calls["orders.verify"] == 3)
            #expect(try await pipeline.balance("huawei-patient") == 100)
            #expect(await eventually { huawei.stats.confirmed == ["hw-coins-flaky"] })
        }
    }

    @Test(arguments: TestBackend.allCases) func aConsumableRefundedByAnOrderNoticeIsDebitedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a credited (and confirmed) consumable
            let huawei = pipeline.stub.huawei
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-coins-r", productID: Self.coins, kind: .consumable, orderID: "HW.ORDER.0002"))
            let (_, posted) = try await pipeline.submitHuawei(
                account: "huawei-r", token: "hw-coins-r", product: Self.coins)
            let receipt = try #require(posted["receipt_id"] as? String)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            #expect(await eventually { huawei.stats.confirmed == ["hw-coins-r"] })

            // When Huawei refunds it and posts REFUND_SUCCESS, twice
            huawei.refund(token: "hw-coins-r", at: Date().addingTimeInterval(-1))
            let notice = huawei.orderNotification(type: 2, token: "hw-coins-r")
            let (status, accepted) = try await push(pipeline, notice)
            #expect(status == 200, "\(accepted)")
            let id = try #require(accepted["notification_id"] as? String)
            let (again, resent) = try await push(pipeline, notice)
            #expect(again == 200 && resent["notification_id"] as? String == id, "\(resent)")

            // Then the coins are taken back once, with a purchase.refunded webhook
            let details = try #require(try await pipeline.settledNotification(id))
            #expect(details.status == .applied && details.type == "REFUND", "\(details)")
            #expect(details.subtype == "REFUND_SUCCESS" && details.accountID == "huawei-r", "\(details)")
            #expect(details.transactionID == "huawei:HW.ORDER.0002", "\(details)")
            #expect(try await pipeline.balance("huawei-r") == 0)
            #expect(try await pipeline.ledgerKinds("huawei-r") == [.refund, .purchase])
            let refunded = try await pipeline.webhooks("purchase.refunded", mentioning: "huawei:HW.ORDER.0002")
            #expect(refunded.count == 1)
            #expect(try await pipeline.storedNotifications() == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aPaymentAnnouncedBeforeItsReceiptIsDroppedAndCreditedByTheReceipt(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given Huawei's PAYMENT_SUCCESS for a consumable, before the backend posts anything
            let huawei = pipeline.stub.huawei
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-coins-early", productID: Self.coins, kind: .consumable, orderID: "HW.ORDER.0003"))
            let (status, accepted) = try await push(
                pipeline, huawei.orderNotification(type: 1, token: "hw-coins-early"))

            // Then the unsigned notice, about a purchase no app recorded, is answered and dropped:
            // nothing stored, Huawei not asked
            #expect(status == 200 && accepted["ignored"] as? String == "unknown_purchase", "\(accepted)")
            #expect(try await pipeline.storedNotifications() == 0)
            #expect(huawei.stats.calls.isEmpty, "\(huawei.stats.calls)")

            // When the backend posts the purchase
            let (_, posted) = try await pipeline.submitHuawei(
                account: "huawei-early", token: "hw-coins-early", product: Self.coins)
            let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))

            // Then the receipt credits it, once, and Huawei is told
            #expect(final["status"] as? String == "credited", "\(final)")
            #expect(try await pipeline.balance("huawei-early") == 100)
            let confirmations = ConfirmationRepository(pipeline.database)
            #expect(
                await eventually {
                    (try? await confirmations.confirmation(store: "huawei", transactionID: "huawei:HW.ORDER.0003"))??
                        .status == .done
                })
            #expect(huawei.stats.confirmed == ["hw-coins-early"])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aSubscriptionIsRenewedByANoticeThenRefundedAndTakenBack(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a Huawei subscription the backend posted, paid for an hour
            let huawei = pipeline.stub.huawei
            let firstEnd = Self.moment(3600)
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-sub-1", productID: Self.vip, kind: .subscription, orderID: "HW.SUB.0001",
                    subscriptionID: "hw-subscription-1", expirationDate: firstEnd))
            let (_, posted) = try await pipeline.submitHuawei(
                account: "huawei-sub", token: "hw-sub-1", product: Self.vip, type: "subscription",
                subscriptionID: "hw-subscription-1")
            let receipt = try #require(posted["receipt_id"] as? String)
            #expect(try await pipeline.finalStatus(receipt)["status"] as? String == "credited")
            #expect(try await pipeline.entitlementEnd("huawei-sub") == firstEnd)

            // When Huawei renews it and posts the signed RENEWAL notice, twice (it resends until 200)
            let renewedEnd = firstEnd.addingTimeInterval(30 * 86_400)
            huawei.renew(token: "hw-sub-1", order: "HW.SUB.0002", until: renewedEnd)
            let renewal = huawei.subscriptionNotification(type: 2, token: "hw-sub-1")
            let (status, accepted) = try await push(pipeline, renewal)
            #expect(status == 200, "\(accepted)")
            let id = try #require(accepted["notification_id"] as? String)
            let (again, resent) = try await push(pipeline, renewal)
            #expect(again == 200 && resent["notification_id"] as? String == id, "\(resent)")

            // Then it is read back and applied once: the entitlement runs to the new end, under
            // the renewal's order, on the account that bought it, with a webhook
            let details = try #require(try await pipeline.settledNotification(id))
            #expect(details.status == .applied && details.type == "DID_RENEW", "\(details)")
            #expect(details.subtype == "RENEWAL" && details.accountID == "huawei-sub", "\(details)")
            #expect(details.transactionID == "huawei:HW.SUB.0002", "\(details)")
            #expect(try await pipeline.entitlementEnd("huawei-sub") == renewedEnd)
            #expect(try await pipeline.storedNotifications() == 1)
            #expect(huawei.stats.calls["subscriptions.get"] == 2)
            let renewed = try await pipeline.webhooks("subscription.renewed", mentioning: "huawei:HW.SUB.0002")
            #expect(renewed.count == 1)

            // When Huawei refunds it and posts CANCEL
            huawei.refund(token: "hw-sub-1", at: Date().addingTimeInterval(-1))
            let (cancelled, cancel) = try await push(
                pipeline, huawei.subscriptionNotification(type: 1, token: "hw-sub-1"))
            #expect(cancelled == 200, "\(cancel)")
            let cancelID = try #require(cancel["notification_id"] as? String)
            let refund = try #require(try await pipeline.settledNotification(cancelID))

            // Then it is applied as a refund and the entitlement is taken back
            #expect(refund.status == .applied && refund.type == "REFUND" && refund.subtype == "CANCEL", "\(refund)")
            #expect(refund.transactionID == "huawei:HW.SUB.0002" && refund.accountID == "huawei-sub", "\(refund)")
            let end = try await pipeline.entitlementEnd("huawei-sub")
            #expect(end.map { $0 <= Date() } ?? true, "the entitlement still runs to \(String(describing: end))")
            let refunded = try await pipeline.webhooks("purchase.refunded", mentioning: "huawei:HW.SUB.0002")
            #expect(refunded.count == 1)
            #expect(try await pipeline.storedNotifications() == 2)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aSubscriptionStoppedThenOnHoldEndsItsEntitlement(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a Huawei subscription the backend posted, paid for an hour
            let huawei = pipeline.stub.huawei
            var purchase = StubHuawei.Purchase(
                token: "hw-sub-hold", productID: Self.vip, kind: .subscription, orderID: "HW.SUB.0101",
                expirationDate: Self.moment(3600))
            huawei.register(purchase)
            let (_, posted) = try await pipeline.submitHuawei(
                account: "huawei-hold", token: "hw-sub-hold", product: Self.vip, type: "subscription",
                subscriptionID: purchase.subscriptionID)
            #expect(
                try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))["status"] as? String
                    == "credited")

            // When the player stops renewing: recorded under Huawei's name, nothing changes
            let (_, stopped) = try await push(pipeline, huawei.subscriptionNotification(type: 5, token: "hw-sub-hold"))
            let stop = try await pipeline.settledNotification(try #require(stopped["notification_id"] as? String))
            #expect(stop?.status == .applied && stop?.type == "RENEWAL_STOPPED", "\(String(describing: stop))")
            #expect(try await pipeline.entitlementEnd("huawei-hold") == purchase.expirationDate)

            // When the period lapsed unpaid and Huawei puts it on hold
            let lapsed = Self.moment(-60)
            purchase.expirationDate = lapsed
            huawei.register(purchase)
            let (_, held) = try await push(pipeline, huawei.subscriptionNotification(type: 9, token: "hw-sub-hold"))
            let holdID = try #require(held["notification_id"] as? String)
            let hold = try #require(try await pipeline.settledNotification(holdID))

            // Then it expires, at the end Huawei reads back, with a webhook
            #expect(hold.status == .applied && hold.type == "EXPIRED" && hold.subtype == "ON_HOLD", "\(hold)")
            #expect(hold.accountID == "huawei-hold", "\(hold)")
            let end = try await pipeline.entitlementEnd("huawei-hold")
            #expect(end.map { $0 <= Date() } ?? true, "the entitlement still runs to \(String(describing: end))")
            let expired = try await pipeline.webhooks("subscription.expired", mentioning: "huawei-hold")
            #expect(expired.count == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aForgedOrMalformedNoticeIsRefusedAndStoresNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let huawei = pipeline.stub.huawei
            let firstEnd = Self.moment(3600)
            huawei.register(
                StubHuawei.Purchase(
                    token: "hw-sub-9", productID: Self.vip, kind: .subscription, expirationDate: firstEnd))

            // A renewal signed by another key than the app's IAP key: 401
            huawei.renew(token: "hw-sub-9", order: "HW.SUB.9999", until: firstEnd.addingTimeInterval(86_400))
            let (status, answer) = try await push(
                pipeline, huawei.subscriptionNotification(type: 2, token: "hw-sub-9", forged: true))
            let error = answer["error"] as? [String: Any]
            #expect(status == 401 && error?["code"] as? String == "unauthorized", "\(answer)")

            // Bodies that are no v2 notification: 400 naming the member
            let signed = try #require(
                try JSONSerialization.jsonObject(with: huawei.subscriptionNotification(type: 2, token: "hw-sub-9"))
                    as? [String: Any])
            var unsigned = signed
            unsigned["subNotification"] = ["statusUpdateNotification": "{}"]
            let cases: [([String: Any], String)] = [
                (["version": "v2", "eventType": "PAYMENT"], "eventType"),
                (
                    [
                        "version": "v2", "eventType": "ORDER",
                        "orderNotification": ["notificationType": 2, "productId": "x"],
                    ],
                    "orderNotification.purchaseToken"
                ),
                (["version": "v2", "eventType": "SUBSCRIPTION"], "subNotification"),
                (unsigned, "subNotification.notificationSignature"),
            ]
            for (body, member) in cases {
                let (status, answer) = try await push(pipeline, try JSONSerialization.data(withJSONObject: body))
                let error = answer["error"] as? [String: Any]
                #expect(status == 400, "\(member): \(answer)")
                #expect(error?["field"] as? String == member, "\(answer)")
            }

            // Nothing was stored, and nobody was credited
            #expect(try await pipeline.storedNotifications() == 0)
            #expect(huawei.stats.calls.isEmpty)
            #expect(try await pipeline.entitlementEnd("huawei-sub") == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func badHuaweiMembersAreRefusedByNameAndStoreNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let good: [String: Any] = ["product_id": Self.coins, "purchase_token": "hw-tok", "type": "consumable"]
            func with(_ change: [String: Any?]) -> [String: Any] {
                var fields = good
                for (key, value) in change { fields[key] = value }
                return fields
            }
            let cases: [([String: Any], String, String)] = [
                (["huawei": "hw-tok"], "invalid_huawei", "huawei"),
                (["huawei": with(["product_id": nil])], "missing_field", "huawei.product_id"),
                (["huawei": with(["product_id": "coins 100"])], "invalid_field", "huawei.product_id"),
                (["huawei": with(["purchase_token": ""])], "invalid_field", "huawei.purchase_token"),
                (["huawei": with(["purchase_token": 42])], "invalid_field", "huawei.purchase_token"),
                (["huawei": with(["type": "gift"])], "invalid_field", "huawei.type"),
                (["huawei": with(["type": "subscription"])], "missing_field", "huawei.subscription_id"),
                (["huawei": with(["subscription_id": "sub-1"])], "invalid_field", "huawei.subscription_id"),
                (["huawei": with(["extra": "x"])], "unknown_field", "huawei.extra"),
                (["huawei": good, "receipt_data": "AAAA"], "ambiguous_receipt", "huawei"),
            ]
            for (fields, code, member) in cases {
                var body: [String: Any] = ["account_id": "huawei-bad"]
                body.merge(fields) { $1 }
                let (status, answer) = try await pipeline.post("/v1/receipts", body)
                let error = answer["error"] as? [String: Any]
                #expect(status == 400, "\(fields)")
                #expect(
                    error?["code"] as? String == code && error?["field"] as? String == member, "\(fields): \(answer)")
            }
            #expect(try await pipeline.storedReceipts() == 0)
            #expect(pipeline.stub.huawei.stats.calls.isEmpty)
        }
    }
}
