import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// What Apple brings to a pipeline of several apps through the store seam: the bundle id its
/// evidence names on its face, and its verifier refusing another app's legacy receipt.
@Suite struct AppleStoreAppsTests {
    typealias F = SignedDataFixtures

    @Test func aSignedTransactionOrANotificationNamesItsBundleID_aReceiptNone() throws {
        let authority = try F.authority()
        let transaction = authority.signer.signTransaction(F.transaction())
        #expect(AppleStore.identity(namedBy: .apple(.signedTransaction, transaction)) == F.bundleID)

        let notice = authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: .test, notificationUUID: UUID().uuidString,
                data: .init(bundleId: "com.example.racer"), version: "2.0", signedDate: F.signedDate))
        #expect(AppleStore.identity(namedBy: .apple(.notification, notice)) == "com.example.racer")

        #expect(AppleStore.identity(namedBy: .apple(.receipt, "MIIT")) == nil)
        #expect(AppleStore.identity(namedBy: .apple(.signedTransaction, "not.a.jws")) == nil)
    }

    @Test func refusingOtherAppsReachesEveryLegacyReceiptCheck() {
        let others = OtherApps(["com.example.racer": "racer"])
        let apple = AppleStore(setup: AppleSetup(verifyReceipt: .init(bundleID: F.bundleID))).refusing(others)
        #expect(apple.setup.otherApps == others)
        #expect(apple.setup.verifyReceipt.otherApps == others)
    }
}
