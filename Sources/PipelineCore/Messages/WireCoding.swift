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
