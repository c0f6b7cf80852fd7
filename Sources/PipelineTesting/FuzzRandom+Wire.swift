import Foundation

/// Values for checking hand-written JSON (`JSONText`) against `JSONEncoder`: plain ids most of
/// the time, and now and then what needs escaping or is not ASCII; integers at their extremes;
/// dates with and without milliseconds, before and after 1970.
extension FuzzRandom {
    /// `make`'s value half of the time, else nil.
    public mutating func maybe<T>(_ make: (inout FuzzRandom) -> T) -> T? { oneIn(2) ? make(&self) : nil }

    public mutating func wireText() -> String {
        let pieces = [
            "abc", "gems_100", "2000000123456789", "a/b", "quote\"d", "back\\slash", "line\nbreak", "tab\t",
            "\u{0}\u{1}\u{1f}\u{7f}", "\u{8}\u{c}\r", "é", "日本", "😀", "\u{2028}", " ", "",
        ]
        return (0..<(1 + below(3))).map { _ in pick(pieces) }.joined()
    }

    public mutating func wireInt() -> Int {
        [0, 1, -1, Int.max, Int.min, 100, -250, Int(truncatingIfNeeded: next())][below(8)]
    }

    public mutating func wireDate() -> Date {
        Date(timeIntervalSince1970: Double(below(4_000_000_000_000)) / 1000 - 1_000_000_000)
    }
}
