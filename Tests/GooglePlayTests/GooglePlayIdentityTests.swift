import GooglePlay
import PipelineCore
import Testing

/// The package a Play purchase or notice names: how a pipeline of several apps refuses
/// another app's purchase without a call to Google, and routes a notice queued by a release
/// before notices proved their app.
@Suite struct GooglePlayIdentityTests {
    @Test func aPurchaseAndANoticeNameTheirPackage() {
        let purchase = GooglePlayPurchase(packageName: "com.example.racer", productID: "coins_100", purchaseToken: "t1")
        #expect(GooglePlayStore.identity(namedBy: .googlePlay(purchase)) == "com.example.racer")

        let notice = GoogleNotice(messageID: "m-1", packageName: "com.example.puzzle", kind: .test)
        #expect(GooglePlayStore.identity(namedBy: .googleNotice(notice)) == "com.example.puzzle")
    }

    @Test func evidenceThatDoesNotReadNamesNone() {
        let garbled = StoreEvidence(store: GooglePlayStore.id, kind: "purchase", payload: "{")
        #expect(GooglePlayStore.identity(namedBy: garbled) == nil)
    }
}
