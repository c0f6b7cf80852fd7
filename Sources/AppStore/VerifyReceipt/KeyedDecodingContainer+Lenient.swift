import Foundation
import PipelineCore

/// Apple writes numbers as strings (`"quantity": "1"`, `"purchase_date_ms": "1700000000000"`)
/// and has been seen to change a field's type; these read what is meant and treat a value of
/// an unexpected type as absent rather than fail the whole answer.
extension KeyedDecodingContainer {
    func lenientString(_ key: Key) -> String? {
        if let value = try? decodeIfPresent(String.self, forKey: key) { return value }
        if let value = try? decodeIfPresent(Int64.self, forKey: key) { return String(value) }
        if let value = try? decodeIfPresent(Bool.self, forKey: key) { return String(value) }
        return nil
    }

    // Strings first, as Apple writes them: a failed attempt builds a DecodingError.
    func lenientInt(_ key: Key) -> Int? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return Int(text.trimmedOfWhitespace) }
        return try? decodeIfPresent(Int.self, forKey: key)
    }

    func lenientBool(_ key: Key) -> Bool? {
        if let value = try? decodeIfPresent(Bool.self, forKey: key) { return value }
        if let value = try? decodeIfPresent(Int.self, forKey: key) { return value != 0 }
        switch (try? decodeIfPresent(String.self, forKey: key))?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }

    /// A date from milliseconds since 1970, written as a string or a number.
    func lenientMilliseconds(_ key: Key) -> Date? {
        let milliseconds: Int64?
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            milliseconds = Int64(text.trimmedOfWhitespace)
        } else if let value = try? decodeIfPresent(Int64.self, forKey: key) {
            milliseconds = value
        } else {
            milliseconds = nil
        }
        return milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}

extension KeyedEncodingContainer {
    /// Writes `date` as Apple does: milliseconds since 1970, as a string.
    mutating func encodeMilliseconds(_ date: Date?, forKey key: Key) throws {
        guard let date else { return }
        try encode(String(Int64((date.timeIntervalSince1970 * 1000).rounded())), forKey: key)
    }
}
