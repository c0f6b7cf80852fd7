import Foundation
import PipelineCore
import StorePlugins
import StubStore
import Testing
import Xiaomi

/// The verifier's outcomes, each read back from the stub's order query over HTTP.
@Suite struct XiaomiVerifierTests {
    static func order(_ cpOrder: String, orderID: String? = nil) throws -> StoreEvidence {
        var member: [String: Any] = ["app_id": StubXiaomi.appID, "cp_order_id": cpOrder, "uid": "100010"]
        member["order_id"] = orderID
        return try XiaomiStore(settings: XiaomiSettings(appID: StubXiaomi.appID, appSecret: StubXiaomi.appSecret))
            .receiptEvidence(member)
    }

    @Test func aPaidOrderIsOneTransactionUnderXiaomisOrderID() async throws {
        try await XiaomiFixture.run { fixture in
            let paid = fixture.stub.pay(
                cpOrderID: "ord-1", uid: "100010", productCode: "coins_100", payFee: 1200, productCount: 2,
                cpUserInfo: "player-1")
            let outcome = try await fixture.verify(try Self.order("ord-1"))
            let expected = VerifiedTransaction(
                transactionID: "xiaomi:\(paid.orderID)", originalTransactionID: "xiaomi:\(paid.orderID)",
                productID: "coins_100", quantity: 2, purchaseDate: paid.paidAt, productType: "Consumable",
                storeAccountID: "player-1", priceMicros: 12_000_000, currency: "CNY")  // ¥12.00, Xiaomi's 1200 fen
            #expect(outcome == .valid(environment: "Production", transactions: [expected]))
            #expect(fixture.stub.queries == 1)
        }
    }

    @Test func aNoticeBecomesTheNotificationOfWhatXiaomiAnswers() async throws {
        try await XiaomiFixture.run { fixture in
            let paid = fixture.stub.pay(cpOrderID: "ord-2", uid: "100010", productCode: "coins_100", payFee: 600)
            let notice = StoreEvidence(store: "xiaomi", kind: "notification", payload: paid.payload)
            guard case .notification(let notification) = try await fixture.verify(notice) else {
                Issue.record("not a notification")
                return
            }
            #expect(notification.notificationUUID == paid.orderID && notification.type == .subscribed)
            #expect(notification.transaction?.transactionID == "xiaomi:\(paid.orderID)")
        }
    }

    @Test func aNoticeTheReadBackContradictsMovesNothing() async throws {
        try await XiaomiFixture.run { fixture in
            let paid = fixture.stub.pay(cpOrderID: "ord-3", uid: "100010", productCode: "coins_100", payFee: 600)
            var claimed = paid
            claimed.productCount = 10
            claimed.payFee = 6000
            let notice = StoreEvidence(store: "xiaomi", kind: "notification", payload: claimed.payload)
            let outcome = try await fixture.verify(notice)
            #expect(outcome == .rejected(reason: "xiaomi_notice_contradicted"))
        }
    }

    @Test func whatXiaomiDoesNotCreditIsRefusedOrRetried() async throws {
        try await XiaomiFixture.run { fixture in
            let unknown = try Self.order("nobody")
            #expect(try await fixture.verify(unknown) == .rejected(reason: "xiaomi_order_not_found"))
            fixture.stub.pay(cpOrderID: "ord-4", uid: "100011", productCode: "coins_100", payFee: 600)
            #expect(try await fixture.verify(try Self.order("ord-4")) == .rejected(reason: "xiaomi_order_not_found"))
            fixture.stub.pay(
                cpOrderID: "ord-5", uid: "100010", productCode: "coins_100", payFee: 600, status: XiaomiOrderInfo.unpaid
            )
            #expect(try await fixture.verify(try Self.order("ord-5")) == .transient(reason: "xiaomi_unpaid"))
            fixture.stub.pay(cpOrderID: "ord-6", uid: "100010", productCode: "coins_100", payFee: 1)
            #expect(try await fixture.verify(try Self.order("ord-6")) == .rejected(reason: "xiaomi_amount_mismatch"))
            fixture.stub.pay(cpOrderID: "ord-7", uid: "100010", productCode: "unpriced_pack", payFee: 100)
            #expect(try await fixture.verify(try Self.order("ord-7")) == .transient(reason: "xiaomi_no_catalog_price"))
            fixture.stub.pay(cpOrderID: "ord-8", uid: "100010", productCode: "coins_100", payFee: 600)
            let named = try Self.order("ord-8", orderID: "21999")
            #expect(try await fixture.verify(named) == .rejected(reason: "xiaomi_order_mismatch"))
            fixture.stub.configuration.withLock { $0.forgeSignatures = true }
            #expect(try await fixture.verify(try Self.order("ord-8")) == .rejected(reason: "xiaomi_bad_signature"))
        }
    }

    @Test func xiaomisFailuresRetry() async throws {
        try await XiaomiFixture.run { fixture in
            fixture.stub.pay(cpOrderID: "ord-9", uid: "100010", productCode: "coins_100", payFee: 600)
            fixture.stub.configuration.withLock {
                $0.failFirst = 1
                $0.rateLimitFirst = 1
            }
            #expect(try await fixture.verify(try Self.order("ord-9")) == .transient(reason: "xiaomi_unavailable"))
            let limited = try await fixture.verify(try Self.order("ord-9"))
            #expect(limited == .transient(reason: "xiaomi_rate_limited", retryAfter: .seconds(1)))
            guard case .valid = try await fixture.verify(try Self.order("ord-9")) else {
                Issue.record("not credited once Xiaomi answers")
                return
            }
        }
    }

    @Test func aPostedOrderIsCheckedAsAnyMember() throws {
        let store = XiaomiStore(settings: XiaomiSettings(appID: StubXiaomi.appID, appSecret: StubXiaomi.appSecret))
        #expect(throws: StoreInputError.self) { try store.receiptEvidence(["cp_order_id": "o", "uid": "u"]) }
        #expect(throws: StoreInputError.self) {
            try store.receiptEvidence(["app_id": "1", "cp_order_id": "o", "uid": "u", "extra": 1])
        }
        let evidence = try Self.order("o-1")
        #expect(XiaomiStore.identity(namedBy: evidence) == StubXiaomi.appID)
        #expect(
            XiaomiOrder(payload: evidence.payload)
                == XiaomiOrder(appID: StubXiaomi.appID, cpOrderID: "o-1", uid: "100010"))
    }
}
