import Foundation
import PipelineCore
import Testing

/// The rates file of `IAP_REVENUE_RATES`: exact decimal rates, dated, and conversions into the
/// base in whole minor units, rounded half away from zero, refused rather than wrapped.
@Suite struct ExchangeRatesTests {
    static func rates(_ json: String) throws(ExchangeRates.FileError) -> ExchangeRates {
        try ExchangeRates(json: Data(json.utf8))
    }

    static let usd = #"""
        {"base": "USD", "rates": [
          {"date": "2026-11-01", "currency": "EUR", "rate": "1.0832"},
          {"date": "2026-10-01", "currency": "EUR", "rate": "1.10"},
          {"date": "2026-11-01", "currency": "JPY", "rate": "0.0067"},
          {"date": "2026-11-01", "currency": "KWD", "rate": "3.2561"}
        ]}
        """#

    @Test func aRateAppliesFromItsDateUntilTheNextOfItsCurrency() throws {
        let rates = try Self.rates(Self.usd)
        #expect(rates.base == "USD")
        #expect(rates.rate(of: "EUR", on: "2026-09-30") == nil)
        #expect(rates.rate(of: "EUR", on: "2026-10-01")?.text == "1.10")
        #expect(rates.rate(of: "EUR", on: "2026-10-31")?.text == "1.10")
        #expect(rates.rate(of: "EUR", on: "2026-11-01")?.text == "1.0832")
        #expect(rates.rate(of: "EUR", on: "2027-05-01")?.date == "2026-11-01")
        #expect(rates.rate(of: "GBP", on: "2026-11-01") == nil)
        // The base converts at 1, whatever the day.
        let one = try #require(rates.rate(of: "USD", on: "1999-01-01"))
        #expect(one.text == "1" && rates.toBase(499, at: one) == 499)
        #expect(ExchangeRates.Rate(date: "", currency: "JPY", units: 67, scale: 4).text == "0.0067")
    }

    @Test func yenAndDinarsBecomeCentsExactly() throws {
        let rates = try Self.rates(Self.usd)
        let yen = try #require(rates.rate(of: "JPY", on: "2026-11-15"))
        // 800 JPY × 0.0067 = 5.36 USD; 1,234,567 JPY = 8,271.5989 USD, 8,271.60
        #expect(rates.toBase(800, at: yen) == 536)
        #expect(rates.toBase(1_234_567, at: yen) == 827_160)
        #expect(rates.toBase(-800, at: yen) == -536)
        let dinar = try #require(rates.rate(of: "KWD", on: "2026-11-15"))
        // 1.500 KWD (1500 fils) × 3.2561 = 4.88415 USD, 4.88; 0.001 KWD = 0.0032561, 0.00
        #expect(rates.toBase(1_500, at: dinar) == 488)
        #expect(rates.toBase(1, at: dinar) == 0)
        #expect(rates.toBase(2, at: dinar) == 1)  // 0.0065122 USD: more than half a cent
        let euro = try #require(rates.rate(of: "EUR", on: "2026-11-15"))
        // 20.00 EUR × 1.0832 = 21.664 USD, 21.66
        #expect(rates.toBase(2_000, at: euro) == 2_166)
    }

    @Test func dollarsBecomeYenRoundedHalfAwayFromZero() throws {
        let rates = try Self.rates(
            #"{"base": "JPY", "rates": [{"date": "2026-01-01", "currency": "USD", "rate": "150"}]}"#)
        let dollar = try #require(rates.rate(of: "USD", on: "2026-11-01"))
        // 0.01 USD is 1.5 JPY: 2; -0.01 is -2; 0.03 is 4.5: 5; 4.99 is 748.5: 749
        #expect(rates.toBase(1, at: dollar) == 2)
        #expect(rates.toBase(-1, at: dollar) == -2)
        #expect(rates.toBase(3, at: dollar) == 5)
        #expect(rates.toBase(499, at: dollar) == 749)
        let precise = try Self.rates(
            #"{"base": "JPY", "rates": [{"date": "2026-01-01", "currency": "USD", "rate": "151.37"}]}"#)
        // 4.99 × 151.37 = 755.3363: 755; 0.01 × 151.37 = 1.5137: 2
        let rate = try #require(precise.rate(of: "USD", on: "2026-01-01"))
        #expect(precise.toBase(499, at: rate) == 755)
        #expect(precise.toBase(1, at: rate) == 2)
    }

    @Test func anAmountTooLargeToConvertIsRefusedNotWrapped() throws {
        let rates = try Self.rates(
            #"{"base": "KWD", "rates": [{"date": "2026-01-01", "currency": "JPY", "rate": "3"}]}"#)
        let yen = try #require(rates.rate(of: "JPY", on: "2026-01-01"))
        // The product with the rate overflows, then the factor of the base's three digits does.
        #expect(rates.toBase(Int64.max / 2, at: yen) == nil)
        #expect(rates.toBase(Int64.max / 1_000, at: yen) == nil)
        #expect(rates.toBase(Int64.min, at: yen) == nil)
        #expect(rates.toBase(1_000, at: yen) == 3_000_000)
    }

    @Test func aBadFileIsRefusedNamingTheEntryAndField() {
        func entry(date: String = "2026-11-01", currency: String = "EUR", rate: String = #""1.08""#) -> String {
            #"{"base": "USD", "rates": [{"date": "2026-01-01", "currency": "GBP", "rate": "1.27"}, "#
                + #"{"date": "\#(date)", "currency": "\#(currency)", "rate": \#(rate)}]}"#
        }
        let cases: [(String, String)] = [
            (#"{"rates": []}"#, "base: missing"),
            (#"{"base": "usd", "rates": []}"#, "base: 'usd' is not a currency code"),
            (#"{"base": "USD"}"#, "rates: missing"),
            (#"{"base": "USD", "rates": [], "note": 1}"#, "the file: unknown field 'note'"),
            ("[1, 2]", "is not a JSON object"),
            ("{\"base\": ", "is not JSON"),
            (entry(currency: "Euro"), "rates[1].currency: 'Euro' is not a currency code"),
            (entry(currency: "USD"), "rates[1].currency: USD is the base, which converts at 1"),
            (entry(date: "2026-02-30"), "rates[1].date: '2026-02-30' is not a date (yyyy-MM-dd)"),
            (entry(date: "1 Nov 2026"), "rates[1].date: '1 Nov 2026' is not a date"),
            (entry(rate: "1.0832"), "rates[1].rate: must be a string"),
            (entry(rate: #""1,08""#), "rates[1].rate: '1,08' is not a decimal"),
            (entry(rate: #""1e3""#), "rates[1].rate: '1e3' is not a decimal"),
            (entry(rate: #""-1.08""#), "rates[1].rate: '-1.08' must be more than 0"),
            (entry(rate: #""0.000""#), "rates[1].rate: '0.000' must be more than 0"),
            (entry(rate: #""0.0000000000001""#), "has more than 12 decimals"),
            (entry(rate: #""99999999999999999999""#), "is too large"),
            (entry(date: "2026-01-01", currency: "GBP"), "rates[1]: GBP on 2026-01-01 is given twice (also rates[0])"),
            (#"{"base": "USD", "rates": [{"date": "2026-01-01", "rate": "1"}]}"#, "rates[0].currency: missing"),
            (#"{"base": "USD", "rates": ["EUR"]}"#, "rates[0]: must be an object"),
        ]
        for (json, message) in cases {
            do {
                _ = try Self.rates(json)
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.problem.contains(message), "\(json): \(error.problem)")
            }
        }
    }

    @Test func aBaseWithNoRatesIsAFileAndAMissingFileIsNamed() throws {
        #expect(try Self.rates(#"{"base": "EUR", "rates": []}"#).rate(of: "USD", on: "2026-01-01") == nil)
        #expect(throws: ExchangeRates.FileError("cannot be read (no such file, or not readable)")) {
            try ExchangeRates(contentsOfFile: "/nonexistent/rates.json")
        }
    }
}
