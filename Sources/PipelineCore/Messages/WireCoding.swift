import Foundation

/// The JSON coders every stage uses for messages, so dates and keys agree on the wire.
public enum WireCoding {
    /// A fresh encoder: ISO 8601 dates with fractional seconds, sorted keys for stable hashes.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A fresh decoder that reads what ``encoder()`` writes (and plain ISO 8601).
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }
}

/// A value stored in a text column as its wire JSON (``WireCoding``, sorted keys): the same
/// value is the same bytes, so that one sent again is found as a duplicate.
public protocol WireJSONStored: Codable {}

extension WireJSONStored {
    /// The stored form.
    public var canonicalJSON: String {
        (try? WireCoding.encoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The value a stored text holds, or nil.
    public init?(canonicalJSON text: String) {
        guard let decoded = try? WireCoding.decoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = decoded
    }
}

/// ISO 8601 timestamps with milliseconds, in UTC.
public enum Timestamp {
    /// `2026-11-24T19:11:33.729Z`: rounded to the nearest millisecond, so that what is read
    /// back is written again the same (Foundation's fractional seconds truncate, and a
    /// parsed `.730` may be a hair under it: read and written again, it became `.729`; found
    /// by the message fuzz target).
    public static func format(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        // `...T15:57:38Z` becomes `...T15:57:38.729Z`.
        let digits = String(fraction)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Reads ISO 8601 with a zone (`Z` or an offset such as `+08:00`), with or without
    /// fractional seconds. A time without a zone is ambiguous and refused.
    public static func parse(_ text: String) -> Date? {
        // The zone must be part of the style: without it the offset is silently ignored.
        if let date = try? Date(
            text,
            strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        ) {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }
}
