import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// The local verifier answers as `verifyReceipt` does, and the modes ask Apple only as documented.
@Suite struct LocalReceiptVerifierTests {
    static let purchase = StubReceipt(
        bundleID: "com.example.game", environment: .sandbox,
        transactions: [
            .init(transactionID: "2000000000000101", productID: "com.example.coins100", quantity: 3),
            .init(
                transactionID: "2000000000000103", originalTransactionID: "2000000000000102",
                productID: "com.example.vip.monthly", expiresDate: Date(timeIntervalSince1970: 1_702_592_000),
                webOrderLineItemID: "2000000000000999"),
        ])

    static func local(trusting store: StubAppStore, bundleID: String = "com.example.game") throws
        -> LocalReceiptVerifier
    {
        LocalReceiptVerifier(
            verifier: try AppReceiptVerifier(
                configuration: .init(rootCertificates: [store.receiptAuthority.rootDER], bundleID: bundleID)))
    }

    @Test func localOutcome_equalsTheVerifyReceiptOutcome_forTheSamePurchase() async throws {
        try await StubStoreFixture.run { stub in
            // Given the same receipt minted both ways: the stub's format for verifyReceipt, PKCS #7 for local
            let apple = try await stub.verifier().verify(submission(stub.receiptData(Self.purchase)))
            let local = try await Self.local(trusting: stub.store).verify(
                submission(stub.store.issuePKCS7(Self.purchase)))
            // Then both say Sandbox and the same transactions (original ids, quantities, expiry)
            guard case .valid(let environment, let transactions) = local else {
                Issue.record("local outcome is \(local)")
                return
            }
            #expect(environment == "Sandbox")
            #expect(transactions.map(\.originalTransactionID) == ["2000000000000101", "2000000000000102"])
            #expect(local == apple)
        }
    }

    @Test func stubStore_vouchesForItsPKCS7Receipts_atVerifyReceipt() async throws {
        try await StubStoreFixture.run { stub in
            var receipt = Self.purchase
            receipt.rawEnvironment = StubReceipt.Environment.production.rawValue
            let outcome = try await stub.verifier().verify(submission(stub.store.issuePKCS7(receipt)))
            guard case .valid(let environment, let transactions) = outcome else {
                Issue.record("outcome is \(outcome)")
                return
            }
            #expect(environment == "Production")
            #expect(transactions.count == 2)
        }
    }

    @Test func wrongBundle_isRejectedAsVerifyReceiptRejectsIt() async throws {
        let store = StubAppStore()
        let outcome = try await Self.local(trusting: store, bundleID: "com.example.other").verify(
            submission(store.issuePKCS7(Self.purchase)))
        #expect(outcome == .rejected(reason: "bundle_mismatch"))
    }

    @Test func anotherAppsBundle_isRejectedNamingTheApp() async throws {
        let store = StubAppStore()
        var configuration = AppReceiptVerifier.Configuration(
            rootCertificates: [store.receiptAuthority.rootDER], bundleID: "com.example.other")
        configuration.otherApps = OtherApps(["com.example.game": "puzzle"])
        let verifier = LocalReceiptVerifier(verifier: try AppReceiptVerifier(configuration: configuration))
        #expect(
            await verifier.verify(submission(store.issuePKCS7(Self.purchase)))
                == .rejected(reason: "app_mismatch: belongs to puzzle"))
    }

    /// The purchase in Production, so Apple (the stub) answers at the first endpoint.
    static var production: StubReceipt {
        var receipt = purchase
        receipt.rawEnvironment = StubReceipt.Environment.production.rawValue
        return receipt
    }

    /// Requests the stub's verifyReceipt endpoints received.
    static func requests(_ store: StubAppStore) -> Int {
        store.stats.production.requests + store.stats.sandbox.requests
    }

    @Test func localMode_neverAsksApple_andRejectsWhatItCannotRead() async throws {
        try await StubStoreFixture.run { stub in
            let verifier = LegacyReceiptVerifier(
                mode: .local, local: try Self.local(trusting: stub.store), apple: try stub.verifier())
            // A good receipt is credited, the stub's own format is rejected as malformed, neither reaches Apple
            let good = await verifier.verify(submission(stub.store.issuePKCS7(Self.production)))
            let unreadable = await verifier.verify(submission(stub.receiptData(Self.production)))
            guard case .valid = good, case .rejected(let reason) = unreadable else {
                Issue.record("good is \(good), unreadable is \(unreadable)")
                return
            }
            #expect(reason.hasPrefix("receipt_malformed: "))
            #expect(Self.requests(stub.store) == 0)
        }
    }

    @Test func localThenApple_asksAppleOnlyWhenTheLocalCheckCannotDecide() async throws {
        try await StubStoreFixture.run { stub in
            let verifier = LegacyReceiptVerifier(
                mode: .localThenApple, local: try Self.local(trusting: stub.store), apple: try stub.verifier())
            // Given a receipt the stub signed, a forged one (another root) and one that is not PKCS #7
            let good = await verifier.verify(submission(stub.store.issuePKCS7(Self.production)))
            let forged = await verifier.verify(submission(StubAppStore().issuePKCS7(Self.production)))
            let unreadable = await verifier.verify(submission(stub.receiptData(Self.production)))
            // Then only the unreadable one goes to Apple, which vouches for it; the forged one is
            // rejected for its chain without asking
            guard case .valid = good, case .rejected(let reason) = forged, case .valid = unreadable else {
                Issue.record("good is \(good), forged is \(forged), unreadable is \(unreadable)")
                return
            }
            #expect(reason.hasPrefix("receipt_chain_invalid: "))
            #expect(Self.requests(stub.store) == 1)
        }
    }

    @Test func subscriptionChecks_alwaysAskApple() async throws {
        try await StubStoreFixture.run { stub in
            let verifier = LegacyReceiptVerifier(
                mode: .local, local: try Self.local(trusting: stub.store), apple: try stub.verifier())
            let check = Submission(
                id: "k-1", accountID: "player-1",
                evidence: .subscriptionCheck(
                    originalTransactionID: "2000000000000102",
                    latestReceipt: stub.store.issuePKCS7(Self.production)),
                submittedAt: Date())
            guard case .valid = await verifier.verify(check) else {
                Issue.record("the check was not answered valid")
                return
            }
            #expect(Self.requests(stub.store) == 1)
        }
    }
}
