import AppStore
import Foundation
import PipelineCore
import StubStore
import Synchronization
import Testing

@Suite("StoreKitVerifier and RoutingVerifier")
struct StoreKitVerifierTests {
    typealias F = SignedDataFixtures

    let authority: TestCertificateAuthority
    let storeKit: StoreKitVerifier

    init() throws {
        authority = try F.authority()
        storeKit = StoreKitVerifier(verifier: try F.verifier(trusting: authority))
    }

    private func submission(
        signedTransaction: String? = nil, signedPayload: String? = nil, receiptData: String? = nil
    ) -> Submission {
        let evidence: Evidence =
            if let signedPayload { .notification(signedPayload: signedPayload) } else if let signedTransaction {
                .signedTransaction(signedTransaction)
            } else { .receipt(receiptData ?? "") }
        return Submission(
            id: "r-1", accountID: signedPayload == nil ? "acct-1" : "", evidence: evidence, submittedAt: F.signedDate)
    }

    // MARK: Signed transactions

    @Test func signedTransaction_isValid_withMappedFields() async {
        // Given a refunded consumable purchase, signed
        var payload = F.transaction()
        payload.revocationDate = Date(timeIntervalSince1970: 1_767_300_000)
        payload.revocationReason = .refundedDueToIssue
        let jws = authority.signer.signTransaction(payload)
        // When the StoreKit verifier checks it
        let outcome = await storeKit.verify(submission(signedTransaction: jws))
        // Then it is valid, with the transaction mapped for the fulfiller
        let expected = VerifiedTransaction(
            transactionID: "2000000123", originalTransactionID: "2000000100", productID: "com.example.game.gems100",
            quantity: 3, purchaseDate: Date(timeIntervalSince1970: 1_767_225_000), expiresDate: nil,
            cancellationDate: Date(timeIntervalSince1970: 1_767_300_000),
            appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", productType: "Consumable",
            appTransactionID: "704289572311531233",
            // $4.990 a unit (Apple's milli-units), three units, in the US storefront
            priceMicros: 14_970_000, currency: "USD", country: "USA")
        #expect(outcome == .valid(environment: "Sandbox", transactions: [expected]))
    }

    @Test func subscriptionTransaction_keepsItsExpiry() async {
        var payload = F.transaction()
        payload.type = .autoRenewableSubscription
        payload.quantity = nil
        payload.expiresDate = Date(timeIntervalSince1970: 1_769_904_000)
        let outcome = await storeKit.verify(submission(signedTransaction: authority.signer.signTransaction(payload)))
        guard case .valid(_, let transactions) = outcome, let transaction = transactions.first else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(transaction.expiresDate == Date(timeIntervalSince1970: 1_769_904_000))
        #expect(transaction.productType == "Auto-Renewable Subscription")
        #expect(transaction.quantity == 1)
        #expect(transaction.cancellationDate == nil)
    }

    @Test func transactionForAnotherBundle_isRejectedAsWrongApp() async {
        let jws = authority.signer.signTransaction(F.transaction(bundleID: "com.example.other"))
        #expect(await storeKit.verify(submission(signedTransaction: jws)) == .rejected(reason: "jws_wrong_app"))
    }

    @Test func transactionFromAnotherAuthority_isRejectedAsInvalidChain() async throws {
        let jws = try F.authority().signer.signTransaction(F.transaction())
        #expect(await storeKit.verify(submission(signedTransaction: jws)) == .rejected(reason: "jws_invalid_chain"))
    }

    @Test func productionTransaction_isRejectedAsWrongEnvironment() async {
        let jws = authority.signer.signTransaction(F.transaction(environment: .production))
        #expect(
            await storeKit.verify(submission(signedTransaction: jws)) == .rejected(reason: "jws_wrong_environment"))
    }

    @Test func garbage_isRejectedAsInvalidFormat() async {
        #expect(
            await storeKit.verify(submission(signedTransaction: "a.b.c.d")) == .rejected(reason: "jws_invalid_format"))
    }

    @Test func transactionWithoutIds_isRejectedAsIncomplete() async throws {
        // Apple's mock transactionInfo is genuine but names no transaction or product.
        let apple = StoreKitVerifier(verifier: try F.appleTestVerifier())
        let jws = try F.text("mock_signed_data/transactionInfo")
        #expect(
            await apple.verify(submission(signedTransaction: jws))
                == .rejected(reason: StoreKitVerifier.incompleteTransaction))
    }

    @Test func receiptDataOrNothing_isRejected() async {
        #expect(
            await storeKit.verify(submission(receiptData: "MIIT"))
                == .rejected(reason: StoreKitVerifier.receiptDataUnsupported))
        #expect(await storeKit.verify(submission()) == .rejected(reason: StoreKitVerifier.missingSignedData))
    }

    // MARK: Notifications

    private func notification(
        type: ResponseBodyV2DecodedPayload.NotificationType, subtype: ResponseBodyV2DecodedPayload.Subtype? = nil,
        transaction: String? = nil, renewalInfo: String? = nil, bundleID: String = F.bundleID
    ) -> String {
        authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: type, subtype: subtype, notificationUUID: "6f2a3c1e-0b7d-4a55-9d0e-2c9f1b8e7a64",
                data: .init(
                    environment: .sandbox, appAppleId: 9_876_543_210, bundleId: bundleID, bundleVersion: "7",
                    signedTransactionInfo: transaction, signedRenewalInfo: renewalInfo, status: .billingGracePeriod),
                version: "2.0", signedDate: F.signedDate))
    }

    @Test func notificationWithTransactionAndRenewalInfo_isANotification_withFields() async {
        // Given a DID_FAIL_TO_RENEW / GRACE_PERIOD notification with a transaction and renewal info
        var transaction = F.transaction()
        transaction.type = .autoRenewableSubscription
        transaction.expiresDate = Date(timeIntervalSince1970: 1_767_225_600)
        let renewalInfo = JWSRenewalInfoDecodedPayload(
            originalTransactionId: "2000000100", productId: "com.example.game.gems100", autoRenewStatus: .on,
            isInBillingRetryPeriod: true, gracePeriodExpiresDate: Date(timeIntervalSince1970: 1_767_830_400),
            signedDate: F.signedDate, environment: .sandbox)
        let jws = notification(
            type: .didFailToRenew, subtype: .gracePeriod, transaction: authority.signer.signTransaction(transaction),
            renewalInfo: authority.signer.signRenewalInfo(renewalInfo))
        // When it is verified
        let outcome = await storeKit.verify(submission(signedPayload: jws))
        // Then the notification carries the verified transaction and the grace period's end
        let expected = StoreNotification(
            notificationUUID: "6f2a3c1e-0b7d-4a55-9d0e-2c9f1b8e7a64", type: "DID_FAIL_TO_RENEW",
            subtype: "GRACE_PERIOD", environment: "Sandbox", signedDate: F.signedDate,
            transaction: VerifiedTransaction(
                transactionID: "2000000123", originalTransactionID: "2000000100",
                productID: "com.example.game.gems100", quantity: 3,
                purchaseDate: Date(timeIntervalSince1970: 1_767_225_000),
                expiresDate: Date(timeIntervalSince1970: 1_767_225_600),
                appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", productType: "Auto-Renewable Subscription",
                appTransactionID: "704289572311531233", priceMicros: 14_970_000, currency: "USD", country: "USA"),
            gracePeriodExpiresDate: Date(timeIntervalSince1970: 1_767_830_400))
        #expect(outcome == .notification(expected))
    }

    @Test func refundNotification_carriesTheRevocation() async {
        var transaction = F.transaction()
        transaction.revocationDate = Date(timeIntervalSince1970: 1_767_300_000)
        let jws = notification(type: .refund, transaction: authority.signer.signTransaction(transaction))
        guard case .notification(let notification) = await storeKit.verify(submission(signedPayload: jws)) else {
            Issue.record("expected a notification")
            return
        }
        #expect(notification.type == .refund)
        #expect(notification.transaction?.cancellationDate == Date(timeIntervalSince1970: 1_767_300_000))
        #expect(notification.gracePeriodExpiresDate == nil)
    }

    @Test func appleTestNotification_isANotification_withoutTransaction() async throws {
        let apple = StoreKitVerifier(verifier: try F.appleTestVerifier())
        let outcome = await apple.verify(submission(signedPayload: try F.text("mock_signed_data/testNotification")))
        #expect(
            outcome
                == .notification(
                    StoreNotification(
                        notificationUUID: "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6", type: "TEST", environment: "Sandbox",
                        signedDate: Date(timeIntervalSince1970: 1_681_314_324))))
    }

    @Test func notificationForAnotherBundle_isRejectedAsWrongApp() async {
        let jws = notification(type: .test, bundleID: "com.example.other")
        #expect(await storeKit.verify(submission(signedPayload: jws)) == .rejected(reason: "jws_wrong_app"))
    }

    @Test func notificationWithTransactionForAnotherBundle_isRejectedAsWrongApp() async {
        let transaction = authority.signer.signTransaction(F.transaction(bundleID: "com.example.other"))
        let jws = notification(type: .refund, transaction: transaction)
        #expect(await storeKit.verify(submission(signedPayload: jws)) == .rejected(reason: "jws_wrong_app"))
    }

    @Test func notificationWithForeignTransaction_isRejectedAsInvalidChain() async throws {
        let foreign = try F.authority().signer.signTransaction(F.transaction())
        let jws = notification(type: .refund, transaction: foreign)
        #expect(await storeKit.verify(submission(signedPayload: jws)) == .rejected(reason: "jws_invalid_chain"))
    }

    @Test func notificationWithTamperedRenewalInfo_isRejectedAsInvalidSignature() async {
        let renewal = authority.signer.signRenewalInfo(
            .init(
                gracePeriodExpiresDate: Date(timeIntervalSince1970: 1_767_830_400), signedDate: F.signedDate,
                environment: .sandbox)
        ).split(separator: ".")
        let longer = JWSRenewalInfoDecodedPayload(
            gracePeriodExpiresDate: Date(timeIntervalSince1970: 1_800_000_000), signedDate: F.signedDate,
            environment: .sandbox)
        let forgedPayload = Base64URL.encode((try? AppStoreJSON.makeEncoder().encode(longer)) ?? Data())
        let jws = notification(type: .didFailToRenew, renewalInfo: "\(renewal[0]).\(forgedPayload).\(renewal[2])")
        #expect(
            await storeKit.verify(submission(signedPayload: jws)) == .rejected(reason: "jws_invalid_signature"))
    }

    @Test func notificationWithoutUUID_isRejectedAsIncomplete() async {
        let jws = authority.signer.signNotification(
            .init(
                notificationType: .test, data: .init(environment: .sandbox, bundleId: F.bundleID),
                signedDate: F.signedDate))
        #expect(
            await storeKit.verify(submission(signedPayload: jws))
                == .rejected(reason: StoreKitVerifier.incompleteNotification))
    }

    // MARK: Routing

    @Test func router_sendsEachKindToItsVerifier() async {
        // Given a router with a recording legacy verifier and the StoreKit verifier
        let legacy = RecordingVerifier(answer: .valid(environment: "Production", transactions: []))
        let router = RoutingVerifier(legacy: legacy, signedData: storeKit)
        let signed = authority.signer.signTransaction(F.transaction())

        // Then receipt data goes to the legacy verifier, untouched
        #expect(
            await router.verify(submission(receiptData: "MIIT")) == .valid(environment: "Production", transactions: []))
        // And signed data to the StoreKit verifier
        guard case .valid(let environment, _) = await router.verify(submission(signedTransaction: signed)) else {
            Issue.record("expected the signed transaction to verify")
            return
        }
        #expect(environment == "Sandbox")
        guard case .notification(let test) = await router.verify(submission(signedPayload: notification(type: .test)))
        else {
            Issue.record("expected the signed payload to verify")
            return
        }
        #expect(test.type == .test)
        // And a submission with an empty receipt goes to the legacy verifier, which owns "missing receipt"
        _ = await router.verify(submission())
        #expect(legacy.receiptIDs == ["r-1", "r-1"])
        #expect(legacy.receiptData == ["MIIT", ""])
    }

    @Test func router_prefersSignedData_whenBothAreSet() async {
        let legacy = RecordingVerifier(answer: .rejected(reason: "legacy"))
        let router = RoutingVerifier(legacy: legacy, signedData: storeKit)
        let outcome = await router.verify(submission(signedTransaction: "a.b.c.d", receiptData: "MIIT"))
        #expect(outcome == .rejected(reason: "jws_invalid_format"))
        #expect(legacy.receiptIDs.isEmpty)
    }
}

/// A legacy verifier that answers one thing and remembers what it was asked.
final class RecordingVerifier: ReceiptVerifier {
    private let answer: VerificationOutcome
    private let submissions = Mutex<[Submission]>([])

    init(answer: VerificationOutcome) {
        self.answer = answer
    }

    var receiptIDs: [String] { submissions.withLock { $0.map(\.id) } }
    var receiptData: [String?] { submissions.withLock { $0.map(\.evidence.legacyReceipt) } }

    func verify(_ submission: Submission) async -> VerificationOutcome {
        submissions.withLock { $0.append(submission) }
        return answer
    }
}
