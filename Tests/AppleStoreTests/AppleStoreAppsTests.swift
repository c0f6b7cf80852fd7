import AppStore
import AppleStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// What Apple brings to a pipeline of several apps through the store seam: the bundle id its
/// evidence names on its face, and its verifier refusing another app's legacy receipt.
@Suite struct AppleStoreAppsTests {
    static let bundleID = "com.example.game"
    static let signedDate = Date(timeIntervalSince1970: 1_767_225_600)

    static func authority() throws -> TestCertificateAuthority {
        try TestCertificateAuthority(
            notBefore: Date(timeIntervalSince1970: 1_735_689_600), notAfter: Date(timeIntervalSince1970: 1_798_761_600))
    }

    @Test func aSignedTransactionOrANotificationNamesItsBundleID_aReceiptNone() throws {
        let authority = try Self.authority()
        let transaction = authority.signer.signTransaction(
            JWSTransactionDecodedPayload(
                originalTransactionId: "2000000100", transactionId: "2000000123", bundleId: Self.bundleID,
                productId: "com.example.game.gems100", signedDate: Self.signedDate))
        #expect(AppleStore.identity(namedBy: .apple(.signedTransaction, transaction)) == Self.bundleID)

        let notice = authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: .test, notificationUUID: UUID().uuidString,
                data: .init(bundleId: "com.example.racer"), version: "2.0", signedDate: Self.signedDate))
        #expect(AppleStore.identity(namedBy: .apple(.notification, notice)) == "com.example.racer")

        #expect(AppleStore.identity(namedBy: .apple(.receipt, "MIIT")) == nil)
        #expect(AppleStore.identity(namedBy: .apple(.signedTransaction, "not.a.jws")) == nil)
    }

    @Test func refusingOtherAppsReachesEveryLegacyReceiptCheck() {
        let others = OtherApps(["com.example.racer": "racer"])
        let apple = AppleStore(setup: AppleSetup(verifyReceipt: .init(bundleID: Self.bundleID))).refusing(others)
        #expect(apple.setup.otherApps == others)
        #expect(apple.setup.verifyReceipt.otherApps == others)
    }
}
