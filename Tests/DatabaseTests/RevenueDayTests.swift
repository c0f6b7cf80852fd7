import Database
import Foundation
import Settlement
import Testing

/// The revenue rollup's own arithmetic: a day's sums of the entries written in it, and the UTC
/// day a moment falls in, without a calendar.
@Suite struct RevenueDayTests {
    @Test func aMomentsDayIsItsUTCDayAcrossCenturiesLeapDaysAndTheEpoch() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        var generator = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [0, -1, 86_399, 86_400, 951_782_400, 4_107_542_399, 1_772_323_200, -2_208_988_800]
        let random = (0..<2_000).map { _ in
            TimeInterval(Int64.random(in: -4_000_000_000...8_000_000_000, using: &generator))
        }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RevenueDay.day(of: date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test func aDaysSumsAreItsPaymentsLessWhatTakeBacksGaveBack() {
        func entry(_ kind: RevenueEntry.Kind, _ gross: Int64, _ proceeds: Int64, estimated: Bool = false)
            -> RevenueEntry
        {
            RevenueEntry(
                app: "", store: "google", accountID: "a", transactionID: "t", originalTransactionID: "t",
                productID: "p", kind: kind, currency: "EUR", gross: gross, proceeds: proceeds,
                commissionBasisPoints: 3000, estimated: estimated)
        }
        var day = RevenueDay(key: RevenueDay.Key(day: "2026-11-29", app: "", store: "google", currency: "EUR"))
        for added in [
            entry(.purchase, 1000, 700), entry(.renewal, 500, 425, estimated: true), entry(.refund, -400, -280),
            entry(.revocation, -100, -85), entry(.reversal, 100, 85),
        ] {
            day.add(added)
        }
        #expect(day.payments == 2 && day.paid == 1500 && day.takeBacks == 2)
        #expect(day.givenBack == -400 && day.gross == 1100 && day.proceeds == 845 && day.estimated == 1)
    }
}
