import Foundation

/// Messages' JSON changed and damaged, for tests that hold a fast reader to `JSONDecoder`.
extension FuzzRandom {
    /// A message's JSON object with, now and then, a member dropped, given a value of another
    /// type, or an unknown one added, at the top or in any object within.
    public mutating func change(_ object: inout [String: Any]) {
        let odd: [Any] = [
            NSNull(), 1, 1.5, "text", "2026-11-28T04:03:34.123Z", "yesterday", true, [String: Any](), [Any](),
            -7, Int64.max,
        ]
        if oneIn(3), let key = object.keys.sorted().randomElement(using: &self) {
            if oneIn(2) { object[key] = nil } else { object[key] = odd[below(odd.count)] }
        }
        if oneIn(5) { object["unknown"] = odd[below(odd.count)] }
        for key in object.keys.sorted() where oneIn(2) {
            if var inner = object[key] as? [String: Any] {
                change(&inner)
                object[key] = inner
            } else if var list = object[key] as? [[String: Any]], !list.isEmpty {
                change(&list[below(list.count)])
                object[key] = list
            }
        }
    }

    /// `json` read, changed as above, and written again.
    public mutating func changed(_ json: [UInt8]) throws -> [UInt8] {
        guard var object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        change(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// `json` cut short or with a byte overwritten.
    public mutating func damaged(_ json: [UInt8]) -> [UInt8] {
        var bytes = json
        if oneIn(2) { return Array(bytes.prefix(below(bytes.count))) }
        bytes[below(bytes.count)] = UInt8.random(in: .min ... .max, using: &self)
        return bytes
    }
}
