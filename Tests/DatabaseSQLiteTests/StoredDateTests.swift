import Foundation
import Testing

@testable import DatabaseSQLite

/// The dates written to SQLite by arithmetic are the text GRDB's formatter wrote, and where
/// the arithmetic cannot be sure, GRDB still writes them.
struct StoredDateTests {
    @Test func whatTheArithmeticWritesIsWhatGRDBWrites() {
        var random = SystemRandomNumberGenerator()
        var written = 0
        let samples = 60_000
        for index in 0..<samples {
            let milliseconds = Int64.random(in: 0...253_402_300_799_999, using: &random)
            // A third at a whole millisecond (as parsed from a store), the rest anywhere.
            let seconds =
                index % 3 == 0
                ? Double(milliseconds) / 1000
                : Double(milliseconds) / 1000 + Double.random(in: 0..<0.001, using: &random)
            let date = Date(timeIntervalSince1970: seconds)
            guard let text = StoredDate.text(date) else { continue }
            written += 1
            #expect(text == StoredDate.grdbText(date), "\(seconds)")
        }
        #expect(written > samples / 2, "the arithmetic wrote only \(written) of \(samples)")
        #expect(StoredDate.text(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14 22:13:20.000")
        #expect(StoredDate.text(Date(timeIntervalSince1970: -30_000_000_000)) == nil)
    }

    @Test func aDateTheArithmeticLeavesIsStoredAsGRDBWritesIt() {
        // Year 1019, and one on a half-millisecond: GRDB's formatter decides those.
        let old = Date(timeIntervalSince1970: -30_000_000_000)
        let half = Date(timeIntervalSince1970: 1_700_000_000.0005)
        for date in [old, half] {
            #expect(StoredDate.text(date) == nil)
            #expect(StoredDate.stored(date) == StoredDate.grdbText(date))
        }
        #expect(StoredDate.stored(old).hasPrefix("1019-"))
        #expect(StoredDate.stored(half).hasPrefix("2023-11-14 22:13:20.00"))
        #expect(StoredDate.stored(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14 22:13:20.000")
    }
}
