import AppStore
import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// StoreKit 2 purchases and App Store Server Notifications through the whole pipeline:
/// the stub signs under its own CA (Apple's OIDs on leaf and intermediate), the validator
/// verifies the chain and signature locally, the fulfiller applies.
@Suite struct StoreKitEndToEndTests {
    @Test(arguments: TestBackend.allCases) func signedTransactionPurchaseIsCredited(_ backend: TestBackend) async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            let signed = pipeline.stub.storeKit.signTransaction(StubTransaction(productID: "com.example.coins500"))
            let (status, id) = try await pipeline.submit(account: "sk2-player", signedTransaction: signed)
            #expect(status == 202)
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "credited")
            #expect(try await pipeline.balance("sk2-player") == 500)
        }
    }

    @Test(arguments: TestBackend.allCases) func forgedSignedTransactionIsRejectedAsAnInvalidChain(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Signed by a CA the pipeline does not trust, as a jailbreak tool's would be
            let other = try StubStoreKit(bundleID: PipelineHarness.bundleID)
            let forged = other.signTransaction(StubTransaction(productID: "com.example.coins500"))
            let (_, id) = try await pipeline.submit(account: "forger", signedTransaction: forged)
            let final = try await pipeline.finalStatus(try #require(id))
            #expect(final["status"] as? String == "rejected")
            #expect(final["reason"] as? String == "jws_invalid_chain")
            #expect(try await pipeline.balance("forger") == 0)
        }
    }

    @Test(arguments: TestBackend.allCases) func refundNotificationDebitsOnceEvenWhenSentThreeTimes(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a credited purchase
            let purchase = StubTransaction(transactionID: "refund-me", productID: "com.example.coins100")
            let (_, id) = try await pipeline.submit(
                account: "refunded", signedTransaction: pipeline.stub.storeKit.signTransaction(purchase))
            _ = try await pipeline.finalStatus(try #require(id))
            #expect(try await pipeline.balance("refunded") == 100)

            // When Apple sends the refund three times (the stub posts it to the intake), plus
            // once more as a separate notification about the same transaction
            var refunded = purchase
            refunded.revocationDate = Date()
            let notification = pipeline.stub.storeKit.signNotification(type: .refund, transaction: refunded)
            for _ in 0..<3 {
                #expect(try await pipeline.stub.storeKit.send(notification, to: pipeline.notificationURL) == 200)
            }
            let another = pipeline.stub.storeKit.signNotification(type: .refund, transaction: refunded)
            #expect(try await pipeline.stub.storeKit.send(another, to: pipeline.notificationURL) == 200)

            // Then the account is debited exactly once
            #expect(await pipeline.notificationsSettled(2))
            #expect(try await pipeline.balance("refunded") == 0)
            let ledger = try await LedgerRepository(pipeline.database).account(id: "refunded")?.ledger ?? []
            #expect(ledger.filter { $0.amount < 0 }.map(\.amount) == [-100])
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
            _ = try await pipeline.receiver.waitFor(count: 2, timeout: .seconds(30)) { $0.wasAccepted }
            let refunds = pipeline.receiver.accepted.filter { $0.bodyString.contains("purchase.refunded") }
            #expect(refunds.count == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func renewalExtendsTheEntitlementAndExpiryEndsIt(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            let ledger = LedgerRepository(pipeline.database)
            // Given a monthly subscription bought by one account
            let firstEnd = Date().addingTimeInterval(3600)
            let first = StubTransaction(
                transactionID: "sub-1", originalTransactionID: "sub-original", productID: "com.example.vip.monthly",
                type: .autoRenewableSubscription, expiresDate: firstEnd)
            let (_, id) = try await pipeline.submit(
                account: "subscriber", signedTransaction: pipeline.stub.storeKit.signTransaction(first))
            #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")
            let bought = try await ledger.account(id: "subscriber")?.entitlements.first
            #expect(bought?.name == "vip")
            #expect(abs((bought?.expiresAt ?? .distantPast).timeIntervalSince(firstEnd)) < 1)

            // When Apple notifies the renewal
            let renewedEnd = Date().addingTimeInterval(31 * 86_400)
            let renewal = StubTransaction(
                transactionID: "sub-2", originalTransactionID: "sub-original", productID: "com.example.vip.monthly",
                type: .autoRenewableSubscription, expiresDate: renewedEnd)
            _ = try await pipeline.stub.storeKit.send(
                pipeline.stub.storeKit.signNotification(type: .didRenew, transaction: renewal),
                to: pipeline.notificationURL)
            #expect(await pipeline.notificationsSettled(1))

            // Then the entitlement runs to the new end
            let renewed = try await ledger.account(id: "subscriber")?.entitlements.first
            #expect(abs((renewed?.expiresAt ?? .distantPast).timeIntervalSince(renewedEnd)) < 1)

            // And when it expires, the entitlement ends
            _ = try await pipeline.stub.storeKit.send(
                pipeline.stub.storeKit.signNotification(type: .expired, transaction: renewal),
                to: pipeline.notificationURL)
            #expect(await pipeline.notificationsSettled(2))
            let ended = try await ledger.account(id: "subscriber")?.entitlements.first
            #expect((ended?.expiresAt ?? .distantFuture) <= Date())
        }
    }

    @Test(arguments: TestBackend.allCases) func refundArrivingBeforeItsPurchaseNetsToZero(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend) { pipeline in
            // Given a refund notification for a purchase not yet credited
            var refunded = StubTransaction(transactionID: "early-refund", productID: "com.example.coins100")
            refunded.revocationDate = Date()
            _ = try await pipeline.stub.storeKit.send(
                pipeline.stub.storeKit.signNotification(type: .refund, transaction: refunded),
                to: pipeline.notificationURL)
            #expect(await pipeline.notificationsSettled(1))

            // When the purchase arrives afterwards
            let purchase = StubTransaction(transactionID: "early-refund", productID: "com.example.coins100")
            let (_, id) = try await pipeline.submit(
                account: "late", signedTransaction: pipeline.stub.storeKit.signTransaction(purchase))
            _ = try await pipeline.finalStatus(try #require(id))

            // Then the account nets to zero
            #expect(try await pipeline.balance("late") == 0)
            #expect(try await LedgerRepository(pipeline.database).audit().isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func withServerAPICredentialsAPurchaseIsConfirmedWithAppleFirst(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, confirmsWithServerAPI: true) { pipeline in
            // Given a purchase Apple's Server API knows (in Sandbox: production answers 4040010 first)
            let known = StubTransaction(transactionID: "3000000000000001", productID: "com.example.coins100")
            let signed = pipeline.stub.storeKit.signTransaction(known)
            pipeline.stub.serverAPI.register(
                signedTransaction: signed, transactionID: known.transactionID, environment: .sandbox)
            // And one signed by the same CA that Apple's Server API has never heard of
            let unknown = StubTransaction(transactionID: "3000000000000002", productID: "com.example.coins100")

            let (_, knownID) = try await pipeline.submit(account: "confirmed", signedTransaction: signed)
            let (_, unknownID) = try await pipeline.submit(
                account: "unconfirmed", signedTransaction: pipeline.stub.storeKit.signTransaction(unknown))

            // Then only the confirmed one is credited
            #expect(try await pipeline.finalStatus(try #require(knownID))["status"] as? String == "credited")
            let rejected = try await pipeline.finalStatus(try #require(unknownID))
            #expect(rejected["status"] as? String == "rejected")
            #expect(try await pipeline.balance("confirmed") == 100)
            #expect(try await pipeline.balance("unconfirmed") == 0)
        }
    }
}
