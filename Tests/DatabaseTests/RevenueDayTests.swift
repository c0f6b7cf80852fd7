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

/// How the rollup moves active subscriptions: a period counts from the day it is paid to the
/// day it ends; a refund ends it early; a reversal starts it again.
@Suite struct RevenueDayMovementTests {
    static func period(_ kind: RevenueEntry.Kind, ends: String?, step: Int = 0, subscription: Bool = true)
        -> RevenueEntry
    {
        RevenueEntry(
            app: "", store: "apple", accountID: "a", transactionID: "t", originalTransactionID: "t", productID: "p",
            kind: kind, currency: "USD", gross: kind == .refund || kind == .revocation ? -999 : 999, proceeds: 0,
            commissionBasisPoints: 3000, subscription: subscription, step: step,
            periodEnds: ends.flatMap { try? Date("\($0)T12:00:00Z", strategy: .iso8601) }, monthlyRecurring: 999)
    }

    @Test func aPeriodCountsFromItsPaymentToItsEndAndARefundEndsItEarly() {
        func moves(_ entry: RevenueEntry) -> [String] {
            RevenueDay.movements(of: entry, on: "2026-11-01").map { "\($0.day) \($0.sign)" }
        }
        #expect(moves(Self.period(.purchase, ends: "2026-12-01")) == ["2026-11-01 1", "2026-12-01 -1"])
        #expect(moves(Self.period(.renewal, ends: "2026-12-01")) == ["2026-11-01 1", "2026-12-01 -1"])
        #expect(moves(Self.period(.refund, ends: "2026-12-01", step: 1)) == ["2026-11-01 -1", "2026-12-01 1"])
        #expect(moves(Self.period(.reversal, ends: "2026-12-01")) == ["2026-11-01 1", "2026-12-01 -1"])
        // A second step of a refund, a period over before it was written, and coins: nothing.
        #expect(moves(Self.period(.refund, ends: "2026-12-01", step: 2)).isEmpty)
        #expect(moves(Self.period(.renewal, ends: "2026-11-01")).isEmpty)
        #expect(moves(Self.period(.purchase, ends: nil)).isEmpty)
        #expect(moves(Self.period(.purchase, ends: "2026-12-01", subscription: false)).isEmpty)
    }
}
