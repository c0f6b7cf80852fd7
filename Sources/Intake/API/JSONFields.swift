import Foundation
import PipelineCore

/// Field rules shared by the API's JSON bodies. Pure: no I/O.
enum JSONFields {
    /// Parses a body that must be a JSON object with only `allowed` keys, none of whose
    /// strings holds a control character.
    /// - Throws: ``APIError`` (400) `invalid_json`, `duplicate_key`, `unknown_field`, or
    ///   `invalid_<member>` for a control character (NUL included) in a member.
    static func object(_ json: some Collection<UInt8>, allowed: Set<String>) throws(APIError) -> [String: Any] {
        try object(json, isAllowed: allowed.contains)
    }

    /// ``object(_:allowed:)`` with the keys allowed told by `isAllowed`, for rules computed
    /// once rather than a set built per request.
    static func object(_ json: some Collection<UInt8>, isAllowed: (String) -> Bool) throws(APIError) -> [String: Any] {
        let (object, controlCharacters) = try parse(json)
        if let unknown = object.keys.sorted().first(where: { !isAllowed($0) }) {
            throw APIError.invalid("unknown_field", "unknown field \(unknown)", field: unknown)
        }
        if let path = controlCharacters.first { throw refusal(path, isMember: isAllowed) }
        return object
    }

    /// Parses a body that must be a JSON object, strictly (``StrictJSON``), whatever its keys,
    /// such as a store's, which may add members: only those under `read` (paths from the
    /// root) are looked at, and a control character in one is `invalid_<member>`. What is
    /// not read is neither stored nor refused.
    static func anyObject(_ json: some Collection<UInt8>, read: [[String]]) throws(APIError) -> [String: Any] {
        let (object, controlCharacters) = try parse(json)
        if let path = firstRead(controlCharacters, read) {
            throw refusal(path, isMember: Set(read.compactMap(\.first)).contains)
        }
        return object
    }

    /// The first of `paths` at or under one of `read`.
    static func firstRead(_ paths: [[String]], _ read: [[String]]) -> [String]? {
        paths.first { path in read.contains { path.starts(with: $0) } }
    }

    private static func parse(_ json: some Collection<UInt8>) throws(APIError) -> ([String: Any], [[String]]) {
        // Built by the strict scan itself when it can (strings, objects, arrays, nulls: every
        // receipt's body); `JSONSerialization`, a second scan, was 2 % of the intake.
        let (built, controlCharacter) = try StrictJSON.read(json)
        if let built { return (built, controlCharacter) }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
                throw APIError.invalid("invalid_json", "the body must be a JSON object")
            }
            object = parsed
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.invalid("invalid_json", "the body is not valid JSON")
        }
        return (object, controlCharacter)
    }

    /// The answer to a control character at `path`: `invalid_<member>` (in snake case, as
    /// the API's codes are) naming the path, e.g. `invalid_google_play` for
    /// `google_play.product_id`.
    static func refusal(_ path: [String], members: Set<String>) -> APIError {
        refusal(path, isMember: members.contains)
    }

    static func refusal(_ path: [String], isMember: (String) -> Bool) -> APIError {
        let field = displayPath(path)
        let message = "\(field) must not contain NUL or other control characters"
        guard let member = path.first, isMember(member) else {
            return APIError.invalid("invalid_json", message, field: field.isEmpty ? nil : field)
        }
        return APIError.invalid("invalid_" + snakeCase(member), message, field: field)
    }

    /// `google_play.product_id`, `items[2]`; control characters of a key shown as `\u0000`.
    static func displayPath(_ path: [String]) -> String {
        var text = ""
        for part in path {
            let visible = part.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control
                    ? "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16) : String(scalar)
            }.joined()
            text += part.hasPrefix("[") || text.isEmpty ? visible : "." + visible
        }
        return text
    }

    /// `signedPayload` → `signed_payload`.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase, !result.isEmpty { result += "_" }
            result += character.lowercased()
        }
    }

    /// `account_id`, `order_id`, ...: 1-128 of `A-Za-z0-9._:-`.
    static func isIdentifier(_ value: String) -> Bool { AccountID.isValid(value) }

    static func identifier(_ object: [String: Any], _ field: String, required: Bool) throws(APIError) -> String? {
        guard let value = try string(object, field) else {
            if required { throw APIError.invalid("missing_field", "\(field) is required", field: field) }
            return nil
        }
        guard isIdentifier(value) else {
            throw APIError.invalid("invalid_\(field)", "\(field) must be 1-128 of A-Z a-z 0-9 . _ : -", field: field)
        }
        return value
    }

    /// `product_id`: 1-256 visible ASCII characters (`!` to `~`).
    static func productID(_ object: [String: Any], required: Bool) throws(APIError) -> String? {
        guard let value = try string(object, "product_id") else {
            if required { throw APIError.invalid("missing_field", "product_id is required", field: "product_id") }
            return nil
        }
        guard (1...256).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.invalid(
                "invalid_product_id", "product_id must be 1-256 visible ASCII characters", field: "product_id")
        }
        return value
    }

    /// A UUID as RFC 9562 writes it: 8-4-4-4-12 hex digits, nothing before or after.
    /// (Foundation's parser reads a C string, so `"<uuid>\u0000junk"` would pass it.)
    static func isUUID(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index)
                ? bytes[index] == UInt8(ascii: "-")
                : (0x30...0x39).contains(bytes[index]) || (0x41...0x46).contains(bytes[index] & ~0x20)
        }
    }

    /// Free text a person writes (a reason): 1-`maximum` characters, counted as JSON Schema
    /// counts them (code points), without control characters, line breaks included.
    static func text(_ object: [String: Any], _ field: String, maximum: Int) throws(APIError) -> String? {
        guard let value = try string(object, field) else { return nil }
        guard (1...maximum).contains(value.unicodeScalars.count),
            !StrictJSON.hasControlCharacter(value, allowingLineBreaks: false)
        else {
            throw APIError.invalid(
                "invalid_\(field)", "\(field) must be 1-\(maximum) characters, none of them a control character",
                field: field)
        }
        return value
    }

    static func string(_ object: [String: Any], _ field: String) throws(APIError) -> String? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        guard let string = value as? String else {
            throw APIError.invalid("invalid_\(field)", "\(field) must be a string", field: field)
        }
        return string
    }

    /// A JSON `true` or `false`: not `1`, `0` or `"true"` (Foundation parses both kinds as
    /// NSNumber; a boolean's type encoding is `c`).
    static func bool(_ object: [String: Any], _ field: String) throws(APIError) -> Bool? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else {
            throw APIError.invalid("invalid_\(field)", "\(field) must be true or false", field: field)
        }
        return number.boolValue
    }
}
