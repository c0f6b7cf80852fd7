import Foundation

/// Field rules shared by the API's JSON bodies. Pure: no I/O.
enum JSONFields {
    /// Parses a body that must be a JSON object with only `allowed` keys.
    /// - Throws: ``APIError`` (400) `invalid_json`, `duplicate_key` or `unknown_field`.
    static func object(_ json: some Collection<UInt8>, allowed: Set<String>) throws(APIError) -> [String: Any] {
        let object = try anyObject(json)
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.invalid("unknown_field", "unknown field \(unknown)", field: unknown)
        }
        return object
    }

    /// Parses a body that must be a JSON object, strictly (``StrictJSON``), whatever its keys.
    static func anyObject(_ json: some Collection<UInt8>) throws(APIError) -> [String: Any] {
        try StrictJSON.check(json)
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
        return object
    }

    /// `account_id`, `order_id`, ...: 1-128 of `A-Za-z0-9._:-`.
    static func isIdentifier(_ value: String) -> Bool {
        (1...128).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x3A || byte == 0x2D
            }
    }

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
