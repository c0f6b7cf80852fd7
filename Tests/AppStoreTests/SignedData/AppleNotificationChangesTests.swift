import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// App Store Server API 1.15-1.21 and Notifications 2.15-2.21 as the verifier meets them:
/// `ONE_TIME_CHARGE`, `RESCIND_CONSENT` (named by `appData`, not `data`), types this code
/// does not know, and the new transaction and renewal fields, all signed by the stub's CA.
@Suite struct AppleNotificationChangesTests {
    typealias F = SignedDataFixtures

    let authority: TestCertificateAuthority
    let storeKit: StoreKitVerifier

    init() throws {
        authority = try F.authority()
        storeKit = StoreKitVerifier(verifier: try F.verifier(trusting: authority))
    }

    static let uuid = "0c7d6e5f-4a3b-4c2d-9e1f-0a9b8c7d6e5f"

    func verify(_ payload: ResponseBodyV2DecodedPayload) async -> VerificationOutcome {
        await storeKit.verify(
            Submission(
                id: "n-1", accountID: "",
                evidence: .notification(signedPayload: authority.signer.signNotification(payload)),
                submittedAt: F.signedDate))
    }

    func payload(_ rawType: String, transaction: String? = nil) -> ResponseBodyV2DecodedPayload {
        var payload = ResponseBodyV2DecodedPayload(
            notificationUUID: Self.uuid,
            data: .init(
                environment: .sandbox, appAppleId: 9_876_543_210, bundleId: F.bundleID,
                signedTransactionInfo: transaction),
            version: "2.0", signedDate: F.signedDate)
        payload.rawNotificationType = rawType
        return payload
    }

    @Test func oneTimeCharge_isAVerifiedPurchase_creditedAsSubscribedIs() async {
        // Given a consumable bought with an appAccountToken, reported by ONE_TIME_CHARGE
        var transaction = F.transaction()
        transaction.offerPeriod = "P1M"
        let outcome = await verify(
            payload("ONE_TIME_CHARGE", transaction: authority.signer.signTransaction(transaction)))

        // Then it is a notification whose verified transaction the applier credits as it does
        // SUBSCRIBED's (to the account the token names), with Apple's new fields carried
        guard case .notification(let notification) = outcome, let credited = notification.transaction else {
            Issue.record("expected a notification with a transaction, got \(outcome)")
            return
        }
        #expect(notification.rawType == "ONE_TIME_CHARGE" && notification.type == .subscribed)
        #expect(credited.productType == "Consumable" && credited.quantity == 3)
        #expect(credited.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(credited.appTransactionID == "704289572311531233" && credited.offerPeriod == "P1M")
    }

    @Test(arguments: ["SOMETHING_APPLE_ADDS_IN_2027", "METADATA_UPDATE", "MIGRATE", "PRICE_INCREASE"])
    func aTypeThePipelineDoesNotActOn_isStillANotification_keptAsSent(_ rawType: String) async {
        let outcome = await verify(payload(rawType, transaction: authority.signer.signTransaction(F.transaction())))
        guard case .notification(let notification) = outcome else {
            Issue.record("expected a notification, got \(outcome)")
            return
        }
        // Recorded and shown with Apple's name; the applier records it as `ignored`
        #expect(notification.rawType == rawType && notification.type == nil)
        #expect(notification.transaction?.transactionID == "2000000123")
    }

    @Test func rescindConsent_namesItsAppInAppData_andIsRecorded_notRejected() async {
        // Given RESCIND_CONSENT as Apple sends it: appData, no data
        var payload = ResponseBodyV2DecodedPayload(
            notificationUUID: Self.uuid, version: "2.0", signedDate: F.signedDate,
            appData: .init(
                appAppleId: 9_876_543_210, bundleId: F.bundleID, environment: .sandbox,
                signedAppTransactionInfo: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"))
        payload.notificationType = .rescindConsent

        // Then it verifies as a notification of this app, with no transaction
        #expect(
            await verify(payload)
                == .notification(
                    StoreNotification(
                        notificationUUID: Self.uuid, type: "RESCIND_CONSENT", environment: "Sandbox",
                        signedDate: F.signedDate)))

        // And one for another app is still refused
        payload.appData?.bundleId = "com.example.other"
        #expect(await verify(payload) == .rejected(reason: "jws_wrong_app"))
    }

    @Test func commitmentFields_areDecodedByApplesNames_andCarried() async throws {
        // Given a monthly subscription with a 12-month commitment, as Apple's JSON names it
        let json = """
            {"transactionId": "2000000500", "originalTransactionId": "2000000400", "productId": "vip.monthly",
             "type": "Auto-Renewable Subscription", "appTransactionId": "704289572311531233", "offerPeriod": "P3M",
             "billingPlanType": "MONTHLY",
             "commitmentInfo": {"billingPeriodNumber": 3, "commitmentExpiresDate": 1798761600000,
                                "commitmentPrice": 119880, "totalBillingPeriods": 12}}
            """
        let decoded = try AppStoreJSON.makeDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(decoded.commitmentInfo?.billingPeriodNumber == 3 && decoded.commitmentInfo?.totalBillingPeriods == 12)

        // Then the verified transaction carries them
        let transaction = try #require(decoded.verifiedTransaction())
        #expect(transaction.billingPlanType == "MONTHLY" && transaction.offerPeriod == "P3M")
        #expect(transaction.appTransactionID == "704289572311531233")
        #expect(transaction.commitmentExpiresDate == Date(timeIntervalSince1970: 1_798_761_600))

        // And renewal info reads its own
        let renewal = """
            {"originalTransactionId": "2000000400", "renewalBillingPlanType": "MONTHLY", "appTransactionId": "7",
             "commitmentInfo": {"commitmentAutoRenewProductId": "vip.monthly", "commitmentAutoRenewStatus": 1,
                                "commitmentRenewalBillingPlanType": "MONTHLY", "commitmentRenewalDate": 1798761600000,
                                "commitmentRenewalPrice": 9990}}
            """
        let info = try AppStoreJSON.makeDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: Data(renewal.utf8))
        #expect(info.renewalBillingPlanType == "MONTHLY" && info.commitmentInfo?.commitmentRenewalPrice == 9990)
        #expect(info.commitmentInfo?.commitmentRenewalDate == Date(timeIntervalSince1970: 1_798_761_600))
    }

    @Test func upgradesOffersAndFamilySharing_areCarriedByApplesNames() throws {
        // A win-back offer's transaction a family member shares, ended by an upgrade, as Apple names them
        let json = """
            {"transactionId": "2000000600", "originalTransactionId": "2000000400", "productId": "vip.monthly",
             "type": "Auto-Renewable Subscription", "isUpgraded": true, "revocationDate": 1798761600000,
             "offerType": 4, "offerIdentifier": "come-back-50", "inAppOwnershipType": "FAMILY_SHARED"}
            """
        let decoded = try AppStoreJSON.makeDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        let transaction = try #require(decoded.verifiedTransaction())
        #expect(
            transaction.isUpgraded == true && transaction.cancellationDate == Date(timeIntervalSince1970: 1_798_761_600)
        )
        #expect(transaction.offerType == "win_back" && transaction.offerID == "come-back-50")
        #expect(transaction.isFamilyShared)
        // The purchaser's own, at the list price, carries none of them
        let own = try AppStoreJSON.makeDecoder().decode(
            JWSTransactionDecodedPayload.self,
            from: Data(#"{"transactionId": "1", "productId": "p", "inAppOwnershipType": "PURCHASED"}"#.utf8))
        let plain = try #require(own.verifiedTransaction())
        #expect(
            plain.isUpgraded == nil && plain.offerType == nil && plain.ownershipType == nil && !plain.isFamilyShared)
    }

    @Test func aVerifiedTransactionFromBefore_decodesWithTheNewFieldsNil() throws {
        // A message queued by an older validator has none of the new keys
        let old = #"{"transaction_id": "t1", "original_transaction_id": "t1", "product_id": "p", "quantity": 1}"#
        let transaction = try JSONDecoder().decode(VerifiedTransaction.self, from: Data(old.utf8))
        #expect(transaction.appTransactionID == nil && transaction.offerPeriod == nil)
        #expect(transaction.billingPlanType == nil && transaction.commitmentExpiresDate == nil)
        #expect(transaction.refundedQuantity == nil)

        // And one with them round-trips
        var new = transaction
        new.appTransactionID = "704289572311531233"
        new.billingPlanType = "MONTHLY"
        new.refundedQuantity = 1
        #expect(try JSONDecoder().decode(VerifiedTransaction.self, from: JSONEncoder().encode(new)) == new)
    }
}
