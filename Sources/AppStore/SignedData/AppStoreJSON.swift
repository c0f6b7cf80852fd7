import Foundation

/// JSON coders for App Store signed payloads: dates are whole milliseconds since 1970, as numbers.
///
/// See [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate).
public enum AppStoreJSON {
    /// A decoder for payloads: dates from millisecond numbers, unknown keys ignored.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    /// An encoder for payloads: dates as whole millisecond integers (Apple never sends fractions),
    /// slashes unescaped, absent optionals left out.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        return encoder
    }
}
