import Foundation
import Testing

@testable import PipelineCore

/// The arithmetic that writes and reads timestamps agrees with Foundation's ISO 8601 styles,
/// which it replaced on the hot path and still serve everything else.
struct TimestampTests {
    private static let style = Date.ISO8601FormatStyle.iso8601.year().month().day()
        .time(includingFractionalSeconds: true).timeZone(separator: .omitted)

    @Test func everyMillisecondWrittenIsWhatFoundationWrites() {
        var random = SystemRandomNumberGenerator()
        // 1600 to 9999, and a dense spell around now and around 1970.
        let ranges: [ClosedRange<Int64>] = [
            -11_676_096_000_000...253_402_300_799_999, 1_700_000_000_000...1_900_000_000_000,
            -100_000_000...100_000_000,
        ]
        for range in ranges {
            for _ in 0..<20_000 {
                let milliseconds = Int64.random(in: range, using: &random)
                let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                let text = Timestamp.format(date)
                #expect(text == Self.foundationText(milliseconds), "\(milliseconds)")
                #expect(Timestamp.parse(text) == date, "\(text)")
            }
        }
    }

    /// Foundation's whole seconds, then the milliseconds (its own fractions truncate).
    private static func foundationText(_ milliseconds: Int64) -> String {
        let seconds = (Double(milliseconds) / 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: seconds).formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        let fraction = String(milliseconds - Int64(seconds) * 1000)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    @Test func readsAsFoundationDoes() throws {
        let texts = [
            "2026-11-24T19:11:33Z", "2026-11-24T19:11:33.729Z", "2024-02-29T23:59:59.999Z", "1969-12-31T23:59:59.001Z",
            "2000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1600-03-01T00:00:00Z",
        ]
        for text in texts {
            let expected = try Date(text, strategy: Self.style)
            let parsed = try #require(Timestamp.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince(expected)) < 0.000_001, "\(text)")
            // Written back with its milliseconds, always three digits.
            let withMilliseconds = text.count == 20 ? text.dropLast() + ".000Z" : text
            #expect(Timestamp.format(parsed) == withMilliseconds)
        }
    }

    @Test(arguments: [
        "2026-11-24T19:11:33+08:00", "2026-11-24T19:11:33.7Z", "2026-11-24T19:11:33.123456Z",
        "2026-11-24T19:11:33.729+0000",
    ])
    func otherFormsAreLeftToFoundation(_ text: String) throws {
        #expect(CivilTime(text: text) == nil)
        #expect(Timestamp.parse(text) != nil, "\(text)")
    }

    @Test(arguments: [
        "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-24T24:00:00Z",
        "2026-11-24T19:60:00Z", "2026-11-24 19:11:33Z", "2026-11-24T19:11:33", "not a date at all!!!",
        "2026-11-24T19:11:3xZ",
    ])
    func invalidFieldsAreNotReadByTheArithmetic(_ text: String) {
        #expect(CivilTime(text: text) == nil)
        #expect(
            Timestamp.parse(text) == (try? Date(text, strategy: Self.style)) ?? (try? Date(text, strategy: .iso8601)))
    }

    @Test func outsideItsYearsFoundationWrites() {
        let old = Date(timeIntervalSince1970: -30_000_000_000)  // 1019
        #expect(CivilTime(milliseconds: -30_000_000_000_000) == nil)
        #expect(Timestamp.format(old).hasPrefix("1019-"))
        // Year 318857: Foundation's text, which reads back to the same instant.
        let far = Date(timeIntervalSince1970: 1e13)
        #expect(CivilTime(milliseconds: 10_000_000_000_000_000) == nil)
        #expect(Timestamp.parse(Timestamp.format(far)) == far)
    }
}
