import Database
import Foundation
import PipelineCore
import SettlementWriter
import Testing

@testable import Repositories

/// Rows the releases with Google Play built in wrote (receipts of kind `google_play`,
/// notifications of store `google`) are relayed as Google's plug-in evidence, and Google's
/// purchases are still kept as `google_play`.
@Suite struct GooglePlayRowsTests {
    static let purchase = #"{"package_name":"com.example.game","product_id":"coins_100","purchase_token":"t1"}"#

    @Test func aGooglePlayReceiptRow_isGooglesPurchase() {
        #expect(
            ReceiptKind.evidence(.googlePlay, Self.purchase)
                == .store(StoreEvidence(store: "google", kind: "purchase", payload: Self.purchase)))
    }

    @Test func googlesPurchase_isKeptAsGooglePlay() {
        #expect(
            ReceiptKind.store(StoreEvidence(store: "google", kind: "purchase", payload: Self.purchase)) == .googlePlay)
    }

    @Test func aGoogleNotificationRow_isGooglesNotification() {
        let notice = #"{"kind":"test","message_id":"m1","package_name":"com.example.game"}"#
        #expect(
            NotificationRow.evidence(store: "google", notice)
                == .store(StoreEvidence(store: "google", kind: StoreEvidence.notificationKind, payload: notice)))
        #expect(NotificationRow.evidence(store: "apple", "a.b.c") == .notification(signedPayload: "a.b.c"))
    }
}
