/// ISO 4217's minor units: how many decimal digits each currency's minor unit has (JPY 0,
/// USD 2, KWD 3), so that money is kept as whole minor units, never floating point.
public enum CurrencyUnits {
    /// Currencies without the usual two digits (ISO 4217, the 2024 list).
    static let exponents: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
        "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// Whether `text` has the shape of an ISO 4217 code: three capital letters.
    public static func isCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (0x41...0x5A).contains($0) }
    }

    /// The digits of `currency`'s minor unit (2 for a code not listed as otherwise).
    public static func exponent(of currency: String) -> Int { exponents[currency] ?? 2 }

    /// `micros` (millionths of the major unit) as whole minor units of `currency`, rounded half
    /// away from zero when they fall between two (Apple's milli-units of a three-digit currency
    /// never do); nil when the amount cannot be held.
    public static func minorUnits(micros: Int64, currency: String) -> Int64? {
        var divisor: Int64 = 1
        for _ in 0..<max(0, 6 - exponent(of: currency)) { divisor *= 10 }
        let (quotient, remainder) = micros.quotientAndRemainder(dividingBy: divisor)
        guard remainder.magnitude * 2 >= divisor.magnitude else { return quotient }
        let (rounded, overflow) = quotient.addingReportingOverflow(micros < 0 ? -1 : 1)
        return overflow ? nil : rounded
    }

    /// Whole minor units of `currency` as micros; nil when they do not fit.
    public static func micros(minorUnits amount: Int64, currency: String) -> Int64? {
        var factor: Int64 = 1
        for _ in 0..<max(0, 6 - exponent(of: currency)) { factor *= 10 }
        let (micros, overflow) = amount.multipliedReportingOverflow(by: factor)
        return overflow ? nil : micros
    }
}
