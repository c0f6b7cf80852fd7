import Foundation
import PipelineCore
import Testing

/// A submission carries exactly one kind of evidence, on the wire as it always travelled.
@Suite struct SubmissionWireTests {
    static let at = Date(timeIntervalSince1970: 1_750_000_000)

    @Test(arguments: [
        Evidence.receipt("B64"), .signedTransaction("a.b.c"), .notification(signedPayload: "n.o.p"),
        .subscriptionCheck(originalTransactionID: "t1", latestReceipt: "B64"),
        .subscriptionCheck(originalTransactionID: "t1", latestReceipt: nil),
    ])
    func eachKindOfEvidence_roundTrips(_ evidence: Evidence) throws {
        // Given a submission of that evidence
        let submission = Submission(id: "s1", accountID: "a1", evidence: evidence, orderID: "o1", submittedAt: Self.at)

        // When it is encoded and decoded again
        let data = try WireCoding.encoder().encode(submission)
        let decoded = try WireCoding.decoder().decode(Submission.self, from: data)

        // Then it is the same, and its id travels as receipt_id
        #expect(decoded == submission)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["receipt_id"] as? String == "s1")
    }

    @Test func theWireFields_nameTheEvidence() throws {
        let check = Submission(
            id: "k1", accountID: "a1", evidence: .subscriptionCheck(originalTransactionID: "t1", latestReceipt: "B64"),
            submittedAt: Self.at)
        let json = try #require(
            try JSONSerialization.jsonObject(with: WireCoding.encoder().encode(check)) as? [String: Any])
        #expect(json["subscription_check"] as? String == "t1")
        #expect(json["receipt_data"] as? String == "B64")
        #expect(json["signed_transaction"] == nil && json["signed_payload"] == nil)
    }

    @Test(arguments: [
        (#"{"receipt_id":"x","account_id":"a","submitted_at":"2025-06-15T15:06:40Z"}"#, "no evidence"),
        (
            #"{"receipt_id":"x","account_id":"a","receipt_data":"B","signed_transaction":"J","submitted_at":"2025-06-15T15:06:40Z"}"#,
            "more than one"
        ),
        (
            #"{"receipt_id":"x","account_id":"a","signed_payload":"P","signed_transaction":"J","submitted_at":"2025-06-15T15:06:40Z"}"#,
            "more than one"
        ),
    ])
    func aMessageWithoutOrWithTwoKindsOfEvidence_doesNotDecode(_ body: String, _ problem: String) {
        // A message that says neither, or two, is poison: the consumer dead-letters it
        #expect {
            try WireCoding.decoder().decode(Submission.self, from: Data(body.utf8))
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test(arguments: [0.0, 1_767_225_600.0, 5_475_000_000.0, 1_700_000_000.0005, -86_400.25])
    func aTimestampReadBackIsWrittenTheSame_toTheNearestMillisecond(_ base: TimeInterval) throws {
        // Every millisecond of a second after `base`: written, read, written again, the same text
        for millisecond in stride(from: 0, to: 1000, by: 7) {
            let date = Date(timeIntervalSince1970: base + Double(millisecond) / 1000)
            let text = Timestamp.format(date)
            let again = try #require(Timestamp.parse(text))
            #expect(Timestamp.format(again) == text, "\(text)")
            #expect(abs(again.timeIntervalSince(date)) <= 0.0005 + 1e-6)
        }
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_767_225_600.9996)) == "2026-01-01T00:00:01.000Z")
    }
}
