import AppStore
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// Apple's subscription changes through the whole pipeline, the stub signing as StoreKit 2
/// does, on both databases: an upgrade moves the entitlement to the new product at once and
/// the upgraded transaction is never a refund; a family member's shared purchase grants the
/// entitlement to the member, never currency, and ends when Apple revokes the sharing.
@Suite struct SubscriptionChangesEndToEndTests {
    static let vip = "com.example.vip.monthly"
    static let plus = "com.example.vip.plus"
    /// The harness's catalog and a higher tier of the group, granting `vip_plus` and 50 coins.
    static let catalog = Catalog(
        products: PipelineHarness.catalog.products + [
            Product(
                productID: plus, kind: .autoRenewable, grant: Grant(currency: "coins", amount: 50),
                entitlement: "vip_plus")
        ])

    static func moment(_ offset: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + offset).rounded())
    }

    func entitlements(_ pipeline: PipelineHarness, _ account: String) async throws -> [String: Date?] {
        let details = try await LedgerRepository(pipeline.database).account(id: account)
        return Dictionary(uniqueKeysWithValues: (details?.entitlements ?? []).map { ($0.name, $0.expiresAt) })
    }

    @Test(arguments: TestBackend.allCases) func anUpgradeMovesAccessAtOnceAndIsNeverARefund(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, catalog: Self.catalog) { pipeline in
            // Given vip (s1) for a month, posted by the app
            let storeKit = pipeline.stub.storeKit
            let monthEnd = Self.moment(30 * 86_400)
            var monthly = StubTransaction(
                transactionID: "up-1", productID: Self.vip, type: .autoRenewableSubscription,
                purchaseDate: Self.moment(-86_400), expiresDate: monthEnd)
            let (_, first) = try await pipeline.submit(
                account: "upgrader", signedTransaction: storeKit.signTransaction(monthly))
            _ = try await pipeline.finalStatus(try #require(first))
            #expect(try await entitlements(pipeline, "upgrader") == ["vip": monthEnd])

            // When the customer upgrades to vip plus: Apple's notification brings the new
            // transaction of the same subscription, and the app posts the upgraded one again
            let upgradedAt = Self.moment(-60)
            let plusEnd = Self.moment(31 * 86_400)
            let upgrade = StubTransaction(
                transactionID: "up-2", originalTransactionID: "up-1", productID: Self.plus,
                type: .autoRenewableSubscription, purchaseDate: upgradedAt, expiresDate: plusEnd)
            #expect(
                try await storeKit.send(
                    storeKit.signNotification(type: .didChangeRenewalPref, subtype: .upgrade, transaction: upgrade),
                    to: pipeline.notificationURL) == 200)
            monthly.revocationDate = upgradedAt
            monthly.isUpgraded = true
            let (_, again) = try await pipeline.submit(
                account: "upgrader", signedTransaction: storeKit.signTransaction(monthly))
            _ = try await pipeline.finalStatus(try #require(again))
            #expect(await pipeline.notificationsSettled(1))

            // Then vip ends at the upgrade, vip plus runs its month, and nothing was refunded
            #expect(try await entitlements(pipeline, "upgrader") == ["vip": upgradedAt, "vip_plus": plusEnd])
            #expect(try await pipeline.balance("upgrader") == 50)
            #expect(!(try await pipeline.ledgerKinds("upgrader")).contains(.refund))
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            #expect(!pipeline.receiver.accepted.contains { $0.bodyString.contains("purchase.refunded") })
        }
    }

    @Test(arguments: TestBackend.allCases) func aFamilyMembersSharedAccessGrantsNoCurrencyAndEndsWithTheSharing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, catalog: Self.catalog) { pipeline in
            let storeKit = pipeline.stub.storeKit
            let end = Self.moment(30 * 86_400)
            // Given the purchaser's vip plus, and a family member's shared access to it
            let bought = StubTransaction(
                transactionID: "fam-1", productID: Self.plus, type: .autoRenewableSubscription, expiresDate: end)
            var shared = StubTransaction(
                transactionID: "fam-1-member", productID: Self.plus, type: .autoRenewableSubscription, expiresDate: end)
            shared.familyShared = true
            for (account, transaction) in [("purchaser", bought), ("member", shared)] {
                let (_, id) = try await pipeline.submit(
                    account: account, signedTransaction: storeKit.signTransaction(transaction))
                let final = try await pipeline.finalStatus(try #require(id))
                #expect(final["status"] as? String == "credited", "\(account): \(final)")
            }

            // Then the member holds vip plus and no coins; the purchaser both
            #expect(try await entitlements(pipeline, "member") == ["vip_plus": end])
            #expect(try await pipeline.balance("member") == 0)
            #expect(try await pipeline.balance("purchaser") == 50)

            // When Apple ends the sharing (REVOKE of the member's transaction)
            var revoked = shared
            revoked.revocationDate = Self.moment(-1)
            #expect(
                try await storeKit.send(
                    storeKit.signNotification(type: .revoke, transaction: revoked), to: pipeline.notificationURL)
                    == 200)
            #expect(await pipeline.notificationsSettled(1))

            // Then the member's access ends, and nobody's coins move
            let held = try await entitlements(pipeline, "member")
            let memberEnd = try #require(held["vip_plus"] ?? nil)
            #expect(memberEnd <= Date())
            let (member, purchaser) = (try await pipeline.balance("member"), try await pipeline.balance("purchaser"))
            #expect(member == 0 && purchaser == 50)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}
