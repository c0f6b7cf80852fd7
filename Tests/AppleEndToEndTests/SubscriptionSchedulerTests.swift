import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Scheduler
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The scheduler asks Apple (the stub's App Store Server API) about subscriptions around
/// their expiry, through the real queue, and the fulfiller extends or ends them.
@Suite struct SubscriptionSchedulerTests {
    /// Checks an hour before each expiry (so at once here) and a second after it, every 200 ms.
    static let scheduler = SubscriptionScheduler.Configuration(
        lead: .seconds(3600), lag: .seconds(1), interval: .milliseconds(200))

    /// Buys a monthly subscription with StoreKit 2 and makes Apple's Server API know it.
    func subscribe(
        _ pipeline: PipelineHarness, account: String, original: String, expires: Date
    ) async throws -> StubTransaction {
        let first = StubTransaction(
            transactionID: original, originalTransactionID: original, productID: "com.example.vip.monthly",
            type: .autoRenewableSubscription, expiresDate: expires)
        let signed = pipeline.stub.storeKit.signTransaction(first)
        pipeline.stub.serverAPI.register(
            signedTransaction: signed, transactionID: original, originalTransactionID: original, environment: .sandbox,
            subscriptionGroupID: "vip")
        let (_, id) = try await pipeline.submit(account: account, signedTransaction: signed)
        #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
        return first
    }

    func entitlementEnd(_ pipeline: PipelineHarness, _ account: String) async throws -> Date? {
        try await LedgerRepository(pipeline.database).account(id: account)?.entitlements.first { $0.name == "vip" }?
            .expiresAt
    }

    @Test(arguments: TestBackend.allCases)
    func aRenewalAppleDidNotAnnounce_isFoundBeforeTheExpiry_andExtendsTheEntitlement(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, confirmsWithServerAPI: true, scheduler: Self.scheduler) { pipeline in
            // Given a subscription that ends in an hour and 8 seconds: the check before its expiry
            // (an hour ahead) is due in 8 s, after Apple's renewal below (before it, the check
            // would find nothing to renew on a loaded machine)
            _ = try await subscribe(
                pipeline, account: "renewer", original: "5000000000000001", expires: Date().addingTimeInterval(3608))

            // When Apple renews it and tells nobody (only its Server API knows)
            let renewedEnd = Date().addingTimeInterval(31 * 86_400)
            let renewal = StubTransaction(
                transactionID: "5000000000000002", originalTransactionID: "5000000000000001",
                productID: "com.example.vip.monthly", type: .autoRenewableSubscription, expiresDate: renewedEnd)
            pipeline.stub.serverAPI.register(
                signedTransaction: pipeline.stub.storeKit.signTransaction(renewal),
                transactionID: renewal.transactionID,
                originalTransactionID: "5000000000000001", environment: .sandbox, subscriptionGroupID: "vip")

            // Then the check before the expiry finds the renewal and the entitlement runs to its end
            let extended = await eventually(timeout: .seconds(60)) {
                guard let end = try? await entitlementEnd(pipeline, "renewer") else { return false }
                return abs(end.timeIntervalSince(renewedEnd)) < 1
            }
            #expect(extended)
            let checks = try await SubscriptionRepository(pipeline.database).subscriptionChecks(
                originalTransactionID: "5000000000000001")
            #expect(checks.contains { $0.phase == "before" && $0.outcome == "renewed" })
            _ = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(60), where: { $0.wasAccepted })
            #expect(pipeline.receiver.accepted.contains { $0.bodyString.contains("subscription.renewed") })
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func aSubscriptionAppleDidNotRenew_endsAfterItsExpiry_withOneWebhook(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, confirmsWithServerAPI: true, scheduler: Self.scheduler) { pipeline in
            // Given a subscription that ends in 3 seconds and that Apple does not renew
            let expiry = Date().addingTimeInterval(3)
            _ = try await subscribe(pipeline, account: "lapsed", original: "5000000000000011", expires: expiry)

            // Then the check after the expiry ends it, once
            let ended = await eventually(timeout: .seconds(60)) {
                let checks =
                    await
                    (try? SubscriptionRepository(pipeline.database).subscriptionChecks(
                        originalTransactionID: "5000000000000011")) ?? []
                return checks.contains { $0.phase == "after" && $0.outcome == "expired" }
            }
            #expect(ended)
            let checks = try await SubscriptionRepository(pipeline.database).subscriptionChecks(
                originalTransactionID: "5000000000000011")
            // A check before the expiry found nothing to change (on a loaded machine the
            // purchase may be credited after its expiry: then only the after-check is planned).
            #expect(checks.last?.phase == "after")
            #expect(checks.filter { $0.phase == "before" }.allSatisfy { $0.outcome == "unchanged" })
            let end = try await #require(try entitlementEnd(pipeline, "lapsed"))
            #expect(end <= Date())
            #expect(abs(end.timeIntervalSince(expiry)) < 1)
            _ = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(60), where: { $0.wasAccepted })
            try await Task.sleep(for: .seconds(1))
            #expect(pipeline.receiver.accepted.filter { $0.bodyString.contains("subscription.expired") }.count == 1)
        }
    }

    // MARK: Without Server API credentials: verifyReceipt with the latest receipt

    /// Buys a monthly subscription with a legacy receipt ending at `expires`.
    func subscribeWithAReceipt(_ pipeline: PipelineHarness, account: String, original: String, expires: Date)
        async throws
    {
        let receipt = pipeline.stub.issue(
            StubReceipt(
                bundleID: PipelineHarness.bundleID, environment: .production,
                transactions: [
                    StubReceipt.Transaction(
                        transactionID: original, productID: "com.example.vip.monthly",
                        purchaseDate: Date().addingTimeInterval(-60), expiresDate: expires)
                ]))
        let (_, id) = try await pipeline.submit(account: account, receiptData: receipt)
        #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
    }

    @Test(arguments: TestBackend.allCases) func withoutServerAPI_theLatestReceiptIsAskedAgain_andListsTheRenewal(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, scheduler: Self.scheduler) { pipeline in
            try await subscribeWithAReceipt(
                pipeline, account: "legacy-renewer", original: "6000000000000001",
                expires: Date().addingTimeInterval(3608))  // the check before it is due in 8 s, after the renewal

            // Apple renews it; only verifyReceipt's latest_receipt_info will say so.
            let renewedEnd = Date().addingTimeInterval(31 * 86_400)
            pipeline.stub.renew(
                StubReceipt.Transaction(
                    transactionID: "6000000000000002", originalTransactionID: "6000000000000001",
                    productID: "com.example.vip.monthly", purchaseDate: Date(), expiresDate: renewedEnd))

            let extended = await eventually(timeout: .seconds(60)) {
                guard let end = try? await entitlementEnd(pipeline, "legacy-renewer") else { return false }
                return abs(end.timeIntervalSince(renewedEnd)) < 1
            }
            #expect(extended)
            let checks = try await SubscriptionRepository(pipeline.database).subscriptionChecks(
                originalTransactionID: "6000000000000001")
            #expect(checks.contains { $0.phase == "before" && $0.outcome == "renewed" })
        }
    }

    @Test(arguments: TestBackend.allCases) func withoutServerAPI_aLapsedSubscriptionEndsAfterItsExpiry(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, scheduler: Self.scheduler) { pipeline in
            let expiry = Date().addingTimeInterval(3)
            try await subscribeWithAReceipt(
                pipeline, account: "legacy-lapsed", original: "6000000000000011", expires: expiry)

            let ended = await eventually(timeout: .seconds(60)) {
                let checks =
                    await
                    (try? SubscriptionRepository(pipeline.database).subscriptionChecks(
                        originalTransactionID: "6000000000000011")) ?? []
                return checks.contains { $0.phase == "after" && $0.outcome == "expired" }
            }
            #expect(ended)
            #expect(try await #require(try entitlementEnd(pipeline, "legacy-lapsed")) <= Date())
        }
    }
}
