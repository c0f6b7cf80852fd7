import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// Xiaomi's game payments through the plug-in seam: Xiaomi's signed payment notices at
/// `GET /v1/xiaomi/notifications` (answered `{"errcode":200}`) and orders a backend posts as the
/// `xiaomi` member of `POST /v1/receipts`, each confirmed with the (stub) order query before the
/// engine every store shares credits it; on the real broker, both backends.
@Suite struct XiaomiEndToEndTests {
    static let coins = "com.example.coins100"

    func notices(_ pipeline: PipelineHarness, _ status: NotificationStatus) async throws -> Int {
        try await ReceiptRepository(pipeline.database).notificationStatusCounts()[status] ?? 0
    }

    @Test(arguments: TestBackend.allCases) func aNoticeAndThePostedOrderCreditThePaymentOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a payment Xiaomi took for our order, the account passed through as cpUserInfo
            let xiaomi = pipeline.stub.xiaomi
            let paid = xiaomi.pay(
                cpOrderID: "ord-e2e-1", uid: "100010", productCode: Self.coins, payFee: 600, cpUserInfo: "xiaomi-1")
            let query = try #require(xiaomi.notice(cpOrderID: "ord-e2e-1"))

            // When Xiaomi notifies it, and again (as it does until answered)
            let first = try await pipeline.deliverXiaomi(query)
            #expect(first.status == 200 && first.errcode == 200)
            let again = try await pipeline.deliverXiaomi(query)
            #expect(again.status == 200 && again.errcode == 200)
            #expect(try await pipeline.storedNotifications() == 1, "one row per Xiaomi order id")

            // Then the account it names is credited once, under Xiaomi's order id
            #expect(await eventually { (try? await pipeline.balance("xiaomi-1")) == 100 })
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "xiaomi-1")).ledger
            #expect(ledger.map(\.transactionID) == ["xiaomi:\(paid.orderID)"])

            // When the backend posts the same order it heard of from its client
            let (status, answer) = try await pipeline.submitXiaomi(account: "xiaomi-1", cpOrderID: "ord-e2e-1")
            #expect(status == 202, "\(answer)")
            let final = try await pipeline.finalStatus(try #require(answer["receipt_id"] as? String))

            // Then nothing more is credited
            #expect(final["reason"] as? String == "already_credited", "\(final)")
            #expect(try await pipeline.balance("xiaomi-1") == 100)
            #expect(xiaomi.queries == 2)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aPostedOrderIsCreditedToItsSubmitterWithAWebhook(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let paid = pipeline.stub.xiaomi.pay(
                cpOrderID: "ord-e2e-2", uid: "100010", productCode: Self.coins, payFee: 600)
            let (status, answer) = try await pipeline.submitXiaomi(account: "xiaomi-2", cpOrderID: "ord-e2e-2")
            #expect(status == 202, "\(answer)")
            let receipt = try #require(answer["receipt_id"] as? String)
            let final = try await pipeline.finalStatus(receipt)
            #expect(final["status"] as? String == "credited", "\(final)")
            #expect(final["kind"] as? String == "xiaomi.purchase", "\(final)")
            #expect(try await pipeline.balance("xiaomi-2") == 100)
            _ = try await pipeline.receiver.waitFor(count: 1, timeout: .seconds(30)) { $0.bodyString.contains(receipt) }
            let webhook = try #require(pipeline.webhooks(for: receipt).first)
            #expect(webhook["type"] as? String == "receipt.credited", "\(webhook)")
            #expect("\(webhook)".contains("xiaomi:\(paid.orderID)"), "\(webhook)")
        }
    }

    @Test(arguments: TestBackend.allCases) func forgedNoticesStoreNothingAndContradictedOnesMoveNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let xiaomi = pipeline.stub.xiaomi
            let paid = xiaomi.pay(
                cpOrderID: "ord-e2e-3", uid: "100010", productCode: Self.coins, payFee: 600, cpUserInfo: "xiaomi-3")

            // A notice not signed with the app's secret is refused in Xiaomi's words, and stored nowhere
            let forged = try await pipeline.deliverXiaomi(
                try #require(xiaomi.notice(cpOrderID: "ord-e2e-3", forged: true)))
            #expect(forged.status == 401 && forged.errcode == 1525)
            var other = paid.parameters
            other["appId"] = "2882303761517000000"
            let stranger = try await pipeline.deliverXiaomi(StubXiaomi.notice(other, secret: "another-apps-secret"))
            #expect(stranger.status == 401 && stranger.errcode == 1515)
            #expect(try await pipeline.storedNotifications() == 0)

            // A notice Xiaomi signed but its order query contradicts (ten packs claimed, one paid)
            var claimed = paid.parameters
            claimed["productCount"] = "10"
            claimed["payFee"] = "6000"
            let contradicted = try await pipeline.deliverXiaomi(StubXiaomi.notice(claimed))
            #expect(contradicted.status == 200 && contradicted.errcode == 200, "stored, to be judged")
            #expect(await eventually { (try? await notices(pipeline, .rejected)) == 1 })
            #expect(try await pipeline.balance("xiaomi-3") == 0)
            #expect(try await LedgerRepository(pipeline.database).account(id: "xiaomi-3") == nil)
        }
    }
}
