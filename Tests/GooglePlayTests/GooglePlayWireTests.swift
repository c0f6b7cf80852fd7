import Foundation
import GooglePlay
import PipelineCore
import Testing

/// Google Play's evidence is a plug-in store's now, but messages the releases that built it
/// in queued (or dead-lettered) still decode as Google's, and what this release publishes
/// still reads as Google's to a validator of the previous one.
@Suite struct GooglePlayWireTests {
    static let purchase = GooglePlayPurchase(
        packageName: "com.example.game", productID: "coins_100", purchaseToken: "t1")

    static func decode(_ body: String) throws -> Submission {
        try WireCoding.decoder().decode(Submission.self, from: Data(body.utf8))
    }

    static func json(_ submission: Submission) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: WireCoding.encoder().encode(submission)) as? [String: Any])
    }

    @Test func aPurchaseThePreviousReleaseQueued_isGooglesEvidence_andIsWrittenAsItWas() throws {
        // Given a validate message as the release with Google built in wrote it
        let old = try Self.decode(
            #"{"receipt_id":"r1","account_id":"a1","google_play":{"package_name":"com.example.game","#
                + #""product_id":"coins_100","purchase_token":"t1"},"submitted_at":"2025-06-15T15:06:40Z"}"#)

        // Then it is Google's purchase, routed to Google's plug-in, its payload what rows hold
        #expect(old.evidence == .googlePlay(Self.purchase))
        #expect(old.evidence.storeEvidence.store == GooglePlayStore.id)
        #expect(old.evidence.storeEvidence.payload == Self.purchase.canonicalJSON)
        #expect(old.evidence.kind == "google_play")

        // And written again, it carries the member the previous release reads, and nothing else
        let json = try Self.json(old)
        #expect((json["google_play"] as? [String: Any])?["purchase_token"] as? String == "t1")
        #expect(json["store_evidence"] == nil && json["google_notice"] == nil)
    }

    @Test func aNoticeThePreviousReleaseQueued_isGooglesNotification_andRoundTrips() throws {
        let old = try Self.decode(
            #"{"receipt_id":"n1","account_id":"","google_notice":{"message_id":"7001","#
                + #""package_name":"com.example.game","kind":"subscription","notification_type":2,"#
                + #""purchase_token":"sub-1","product_id":"vip_monthly"},"submitted_at":"2025-06-15T15:06:40Z"}"#)
        let notice = GoogleNotice(
            messageID: "7001", packageName: "com.example.game", kind: .subscription, notificationType: 2,
            purchaseToken: "sub-1", productID: "vip_monthly")
        #expect(old.evidence == .googleNotice(notice))
        #expect(old.evidence.storeEvidence.kind == StoreEvidence.notificationKind)

        let json = try Self.json(old)
        #expect((json["google_notice"] as? [String: Any])?["message_id"] as? String == "7001")
        #expect(try WireCoding.decoder().decode(Submission.self, from: WireCoding.encoder().encode(old)) == old)
    }

    @Test func aMessageWithGooglesAndAnotherEvidence_doesNotDecode() {
        let body =
            #"{"receipt_id":"x","account_id":"a","receipt_data":"B","google_play":{"package_name":"com.example.game","#
            + #""product_id":"coins_100","purchase_token":"t1"},"submitted_at":"2025-06-15T15:06:40Z"}"#
        #expect { try Self.decode(body) } throws: { "\($0)".contains("more than one") }
    }

    @Test func googlesEvidenceThatDoesNotRead_travelsAsAnyStoresEvidence() throws {
        // A payload no Google type reads (no release writes one) keeps the plug-in's member
        let odd = Submission(
            id: "r9", accountID: "a1",
            evidence: .store(StoreEvidence(store: "google", kind: "purchase", payload: "{}")),
            submittedAt: Date(timeIntervalSince1970: 1_750_000_000))
        #expect(try Self.json(odd)["store_evidence"] != nil)
        #expect(try WireCoding.decoder().decode(Submission.self, from: WireCoding.encoder().encode(odd)) == odd)
    }

    @Test func googlesPurchases_keepTheirReceiptKind() {
        #expect(StoreEvidence.googlePlay(Self.purchase).receiptKind == "google_play")
        #expect(
            StoreEvidence(receiptKind: "google_play", payload: Self.purchase.canonicalJSON)
                == .googlePlay(Self.purchase))
        #expect(
            StoreEvidence.googleNotice(GoogleNotice(messageID: "m", packageName: "p", kind: .test)).receiptKind
                == "google_notice")
    }
}
