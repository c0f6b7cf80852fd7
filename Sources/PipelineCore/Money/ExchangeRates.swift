import Foundation

/// A rates file (`IAP_REVENUE_RATES`): what one unit of each currency is worth in a base
/// currency, from a date on, so that sums across currencies can be shown beside the
/// per-currency ones. Rates are exact decimals written as strings, never floating point:
///
/// ```json
/// {"base": "USD", "rates": [{"date": "2026-11-01", "currency": "EUR", "rate": "1.0832"}]}
/// ```
///
/// A rate applies from its date until the next one of its currency; the base converts at 1.
public struct ExchangeRates: Sendable, Equatable {
    /// One dated rate: one unit of `currency` is worth `units / 10^scale` units of the base.
    public struct Rate: Sendable, Equatable {
        /// `yyyy-MM-dd`: the first day the rate applies (empty for the base's own rate of 1).
        public let date: String
        public let currency: String
        /// The rate's digits without its decimal point: `1.0832` is 10832 at scale 4.
        public let units: Int64
        /// The digits after the decimal point, as written.
        public let scale: Int

        public init(date: String, currency: String, units: Int64, scale: Int) {
            self.date = date
            self.currency = currency
            self.units = units
            self.scale = scale
        }

        /// The rate as written: `1.0832`.
        public var text: String {
            guard scale > 0 else { return String(units) }
            let digits = String(units)
            let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
            return padded.dropLast(scale) + "." + padded.suffix(scale)
        }
    }

    /// What is wrong with a rates file, and where (`rates[3].date`, entries counted from 0).
    public struct FileError: Error, CustomStringConvertible, Sendable, Equatable {
        public let problem: String

        public init(_ problem: String) { self.problem = problem }

        public var description: String { problem }
    }

    /// The currency every rate converts into.
    public let base: String
    /// Each currency's rates, oldest first.
    private let rates: [String: [Rate]]

    /// The most digits a rate may have after its point: with a currency's 4 minor digits the
    /// divisor of a conversion stays within 10^16, so that it fits in Int64.
    public static let maximumScale = 12

    /// Rates into `base`, checked as a file's are (see ``init(json:)``).
    public init(base: String, rates: [Rate]) throws(FileError) {
        guard CurrencyUnits.isCode(base) else {
            throw FileError("base: '\(base.prefix(16))' is not a currency code (three capital letters, ISO 4217)")
        }
        var seen: [String: Int] = [:]
        var byCurrency: [String: [Rate]] = [:]
        for (index, rate) in rates.enumerated() {
            let at = "rates[\(index)]"
            guard rate.currency != base else {
                throw FileError("\(at).currency: \(base) is the base, which converts at 1; leave it out")
            }
            guard CurrencyUnits.isCode(rate.currency) else {
                throw FileError(
                    "\(at).currency: '\(rate.currency.prefix(16))' is not a currency code (three capital letters, ISO 4217)"
                )
            }
            guard Self.isDay(rate.date) else {
                throw FileError("\(at).date: '\(rate.date.prefix(16))' is not a date (yyyy-MM-dd)")
            }
            guard rate.units > 0, (0...Self.maximumScale).contains(rate.scale) else {
                throw FileError("\(at).rate: must be more than 0, with at most \(Self.maximumScale) decimals")
            }
            if let earlier = seen.updateValue(index, forKey: rate.currency + " " + rate.date) {
                throw FileError("\(at): \(rate.currency) on \(rate.date) is given twice (also rates[\(earlier)])")
            }
            byCurrency[rate.currency, default: []].append(rate)
        }
        self.base = base
        // Dates are yyyy-MM-dd, so their text sorts as the days do.
        self.rates = byCurrency.mapValues { $0.sorted { $0.date < $1.date } }
    }

    /// Reads a rates file's JSON; every problem names its entry and field.
    public init(json: Data) throws(FileError) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw FileError("is not JSON (\(error.localizedDescription))")
        }
        guard let object = parsed as? [String: Any] else {
            throw FileError("is not a JSON object {\"base\": …, \"rates\": […]}")
        }
        try Self.onlyFields(["base", "rates"], of: object, at: "the file")
        guard let base = object["base"] else { throw FileError("base: missing (the currency rates convert into)") }
        guard let base = base as? String else { throw FileError("base: must be a string such as \"USD\"") }
        guard let entries = object["rates"] else { throw FileError("rates: missing (a list, which may be empty)") }
        guard let entries = entries as? [Any] else { throw FileError("rates: must be a list of rates") }
        var rates: [Rate] = []
        for (index, entry) in entries.enumerated() {
            let at = "rates[\(index)]"
            guard let entry = entry as? [String: Any] else {
                throw FileError("\(at): must be an object with date, currency and rate")
            }
            try Self.onlyFields(["date", "currency", "rate"], of: entry, at: at)
            func text(_ field: String) throws(FileError) -> String {
                guard let value = entry[field] else { throw FileError("\(at).\(field): missing") }
                // A rate written as a JSON number would have passed through floating point.
                guard let text = value as? String else {
                    throw FileError("\(at).\(field): must be a string (\"\(field == "rate" ? "1.0832" : "…")\")")
                }
                return text
            }
            let (date, currency, written) = (try text("date"), try text("currency"), try text("rate"))
            let (units, scale) = try Self.decimal(written, at: "\(at).rate")
            rates.append(Rate(date: date, currency: currency, units: units, scale: scale))
        }
        try self.init(base: base, rates: rates)
    }

    /// Reads the rates file at `path` (its errors do not repeat the path).
    public init(contentsOfFile path: String) throws(FileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError("cannot be read (no such file, or not readable)")
        }
        try self.init(json: data)
    }

    /// The rate `currency` converts at on `day` (`yyyy-MM-dd`): its latest dated on or before
    /// it; the base's is 1. Nil when the file has none that early.
    public func rate(of currency: String, on day: String) -> Rate? {
        if currency == base { return Rate(date: "", currency: base, units: 1, scale: 0) }
        return rates[currency]?.last { $0.date <= day }
    }

    /// `amount` minor units of `rate.currency` as minor units of the base, rounded half away
    /// from zero (as ``CurrencyUnits`` rounds: 1.5 cents is 2, -1.5 is -2); nil when a step
    /// does not fit in Int64, never a wrapped or approximate figure.
    public func toBase(_ amount: Int64, at rate: Rate) -> Int64? {
        let (product, overflow) = amount.multipliedReportingOverflow(by: rate.units)
        guard !overflow else { return nil }
        // base minor = amount × units × 10^(base digits − currency digits − rate's scale)
        let shift = CurrencyUnits.exponent(of: base) - CurrencyUnits.exponent(of: rate.currency) - rate.scale
        var power: Int64 = 1
        for _ in 0..<abs(shift) { power *= 10 }
        if shift >= 0 {
            let (scaled, overflow) = product.multipliedReportingOverflow(by: power)
            return overflow ? nil : scaled
        }
        let (quotient, remainder) = product.quotientAndRemainder(dividingBy: power)
        guard remainder.magnitude * 2 >= power.magnitude else { return quotient }
        return quotient + (product < 0 ? -1 : 1)
    }

    /// A real day written `yyyy-MM-dd` (from 1600), as a timestamp's date is read.
    static func isDay(_ text: String) -> Bool {
        text.utf8.count == 10 && CivilTime(text: text + "T00:00:00Z") != nil
    }

    /// A decimal such as `1.0832` as its digits and the count of them after the point.
    static func decimal(_ text: String, at: String) throws(FileError) -> (units: Int64, scale: Int) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) })
        else {
            let sign = text.hasPrefix("-") ? "must be more than 0" : "is not a decimal"
            throw FileError("\(at): '\(text.prefix(24))' \(sign) (digits, a point and digits: \"1.0832\")")
        }
        let scale = parts.count == 2 ? parts[1].count : 0
        guard scale <= maximumScale else {
            throw FileError("\(at): '\(text.prefix(24))' has more than \(maximumScale) decimals")
        }
        var units: Int64 = 0
        for digit in parts.joined().utf8 {
            let (times, overflow) = units.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflow, !carry else { throw FileError("\(at): '\(text.prefix(24))' is too large") }
            units = sum
        }
        guard units > 0 else { throw FileError("\(at): '\(text.prefix(24))' must be more than 0") }
        return (units, scale)
    }

    private static func onlyFields(_ known: Set<String>, of object: [String: Any], at: String) throws(FileError) {
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw FileError(
                "\(at): unknown field '\(unknown.prefix(24))' (known: \(known.sorted().joined(separator: ", ")))")
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
