import Foundation
import Testing

@testable import StubStore

@Suite struct StubReceiptTests {
    let key = "test-key"

    @Test func encoded_decodesWithTheSameKey() throws {
        // Given a receipt with a subscription and a refund
        let receipt = StubReceipt(
            bundleID: "com.example.game", environment: .sandbox,
            transactions: [
                .init(
                    transactionID: "11", originalTransactionID: "10", productID: "vip",
                    purchaseDate: Date(timeIntervalSince1970: 1_700_000_000.5),
                    expiresDate: Date(timeIntervalSince1970: 1_702_592_000),
                    cancellationDate: Date(timeIntervalSince1970: 1_701_000_000), cancellationReason: "1")
            ], failFirst: 3)
        // When it is encoded and decoded
        let data = receipt.encoded(signingKey: key)
        let decoded = try StubReceipt.decode(receiptData: data, signingKey: key).get()
        // Then it is the same receipt, and receipt-data is plain base64
        #expect(decoded == receipt)
        #expect(decoded.environment == .sandbox)
        #expect(Data(base64Encoded: data) != nil)
    }

    @Test func decode_withAnotherKey_isUnauthenticated() {
        let data = coinsReceipt().encoded(signingKey: "other-key")
        #expect(StubReceipt.decode(receiptData: data, signingKey: key).failure?.status == 21003)
    }

    @Test func decode_whenPayloadIsAltered_isUnauthenticated() throws {
        // Given a signed receipt whose product is changed afterwards
        var bytes = Array(Data(base64Encoded: coinsReceipt().encoded(signingKey: key))!)
        let text = String(decoding: bytes, as: UTF8.self)
        let forged = text.replacingOccurrences(of: "coins100", with: "coins999")
        #expect(forged != text)
        bytes = Array(forged.utf8)
        // Then the signature no longer matches
        let result = StubReceipt.decode(receiptData: Data(bytes).base64EncodedString(), signingKey: key)
        #expect(result.failure == .unauthenticated("the signature does not match"))
    }

    @Test func decode_whenUnsigned_isUnauthenticated() throws {
        let payload = try JSONEncoder().encode(["bundle_id": "com.example.game"])
        let unsigned = Data("iapstub1.".utf8) + payload
        let result = StubReceipt.decode(receiptData: unsigned.base64EncodedString(), signingKey: key)
        #expect(result.failure?.status == 21003)
    }

    @Test(arguments: ["not base64 at all!", Data("some other receipt".utf8).base64EncodedString(), ""])
    func decode_whenNotAStubReceipt_isMalformed(receiptData: String) {
        #expect(StubReceipt.decode(receiptData: receiptData, signingKey: key).failure?.status == 21002)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Apple's three forms of a date, written by arithmetic, agree with a calendar's reading.
struct AppleDateTests {
    @Test func theZonesWrittenAreWhatACalendarReads() {
        var random = SystemRandomNumberGenerator()
        for zone in ["Etc/GMT", "America/Los_Angeles"] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            // A year before 1600 (a calendar writes it), then random dates 1970-2100.
            let dates =
                [Date(timeIntervalSince1970: -15_000_000_000)]
                + (0..<5_000).map { _ in
                    Date(timeIntervalSince1970: Double.random(in: 0..<4_102_444_800, using: &random))
                }
            for date in dates {
                let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
                let fields = String(
                    format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
                let expected = fields + " " + zone
                #expect(AppleDate.format(date, zone: zone) == expected)
            }
        }
    }
}
