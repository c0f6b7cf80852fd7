import Foundation
import Testing

@testable import AppStore

/// Receipt dates: Apple's `Z`, Xcode's `+hhmm`, fractions; nonsense is nil, never a crash.
@Suite struct ReceiptDateTests {
    @Test(arguments: [
        ("2024-02-23T17:27:16Z", 1_708_709_236.0),
        ("2020-07-22T18:33:15+0100", 1_595_439_195.0),
        ("2020-07-22T18:33:15+01:00", 1_595_439_195.0),
        ("2021-04-03T22:38:45-0330", 1_617_502_125.0),
        ("1970-01-01T00:00:00.250Z", 0.25),
        ("4001-01-01T00:00:00+0000", 64_092_211_200.0),
    ])
    func rfc3339_parses(_ text: String, _ seconds: Double) {
        #expect(ReceiptDate.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "2024-02-23", "2024-13-01T00:00:00Z", "2024-02-23T17:27:16", "2024-02-23T17:27:16Zjunk",
        "2024-02-23T17:27:16+1", "abcd-ef-ghTij:kl:mnZ", "2024-02-23T17:27:16.Z",
    ])
    func nonsense_isNil(_ text: String) {
        #expect(ReceiptDate.parse(text) == nil)
    }

    @Test func format_roundTrips() {
        for seconds in [0.0, 1_708_709_236, 951_782_400, 4_102_444_799, -86_401] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ReceiptDate.parse(ReceiptDate.format(date)) == date)
        }
        #expect(ReceiptDate.format(Date(timeIntervalSince1970: 1_708_709_236)) == "2024-02-23T17:27:16Z")
    }
}
