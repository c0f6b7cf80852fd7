import Foundation

/// A JSON document a fuzzer can bend where a real encoder would not: duplicate keys, number
/// literals no type holds, nesting past any limit, a value of the wrong type.
///
/// ```swift
/// var document = try FuzzJSON(parsing: validBody)
/// document.mutate(random: &random)
/// let input = document.text   // e.g. {"status":"0","status":1e999,...}
/// ```
public indirect enum FuzzJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The literal as written, so `1e999` and `-0` survive.
    case number(String)
    case string(String)
    case array([FuzzJSON])
    /// In order, duplicates allowed.
    case object([(key: String, value: FuzzJSON)])
    /// `inner` wrapped in `depth` arrays (or one-key objects): kept flat, so a depth of
    /// thousands neither writes nor frees through as many stack frames.
    case nested(FuzzJSON, depth: Int, objects: Bool)

    public static func == (lhs: FuzzJSON, rhs: FuzzJSON) -> Bool { lhs.text == rhs.text }

    /// Reads a JSON document (object keys in sorted order: Foundation keeps no order).
    public init(parsing data: Data) throws {
        self.init(foundation: try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
    }

    init(foundation value: Any) {
        switch value {
        case let dictionary as [String: Any]:
            self = .object(dictionary.keys.sorted().map { (key: $0, value: FuzzJSON(foundation: dictionary[$0]!)) })
        case let array as [Any]:
            self = .array(array.map(FuzzJSON.init(foundation:)))
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            // CFBoolean is an NSNumber too; only it answers "c" (char) as its type.
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.stringValue)
            }
        default:
            self = .null
        }
    }

    /// The document as JSON text, exactly as the tree says (duplicates and odd numbers kept).
    public var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let literal): literal
        case .string(let value): Self.quoted(value)
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let pairs):
            "{" + pairs.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        case .nested(let inner, let depth, let objects):
            String(repeating: objects ? #"{"a":"# : "[", count: depth) + inner.text
                + String(repeating: objects ? "}" : "]", count: depth)
        }
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    private static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    // MARK: Mutations

    /// Number literals on the edges of every numeric type a decoder might use.
    static let oddNumbers = [
        "0", "-0", "1", "-1", "0.5", "1e999", "-1e999", "1e-999", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "99999999999999999999999999999999", "2147483648",
        "4294967296", "1.7976931348623157e308", "4.9e-324", "123456789012345678901234567890.5", "1E2", "-1.5e+3",
    ]

    /// Strings a parser should survive: empty, huge, control and combining characters, numbers in text.
    static let oddStrings = [
        "", " ", "0", "-1", "99999999999999999999", "1e999", "true", "null", "\u{0}", "\n\r\t", "é", "👍🏽",
        "e\u{301}", "\u{202E}gnp.exe", "\u{FEFF}", "2024-02-30T25:61:61Z", "1700000000000",
        String(repeating: "A", count: 70_000), "Production", "Sandbox", "Xcode", "com.example.game",
    ]

    /// A value of a random kind, `depth` levels deep at most.
    static func randomValue(random: inout FuzzRandom, depth: Int = 2) -> FuzzJSON {
        switch random.below(depth > 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(random.oneIn(2))
        case 2: return .number(random.pick(oddNumbers))
        case 3: return .string(random.pick(oddStrings))
        case 4: return .string(String(decoding: random.bytes(random.below(12)), as: UTF8.self))
        case 5: return .array((0..<random.below(3)).map { _ in randomValue(random: &random, depth: depth - 1) })
        default:
            return .object(
                (0..<random.below(3)).map { _ in
                    (
                        key: random.pick(["a", "status", "receipt", "in_app", ""]),
                        value: randomValue(random: &random, depth: depth - 1)
                    )
                })
        }
    }

    /// Nested arrays or objects, `depth` levels, around `inner`.

    /// Applies one mutation somewhere in the tree: at this node, or in a child.
    public mutating func mutate(random: inout FuzzRandom) {
        switch self {
        case .array(var items) where !items.isEmpty && !random.oneIn(3):
            let index = random.below(items.count)
            items[index].mutate(random: &random)
            self = .array(items)
            return
        case .object(var pairs) where !pairs.isEmpty && !random.oneIn(3):
            let index = random.below(pairs.count)
            pairs[index].value.mutate(random: &random)
            self = .object(pairs)
            return
        default:
            mutateHere(random: &random)
        }
    }

    private mutating func mutateHere(random: inout FuzzRandom) {
        switch (self, random.below(8)) {
        case (.object(var pairs), 0) where !pairs.isEmpty:  // a key twice, the second of another kind
            let pair = random.pick(pairs)
            pairs.insert((key: pair.key, value: Self.randomValue(random: &random)), at: random.below(pairs.count + 1))
            self = .object(pairs)
        case (.object(var pairs), 1) where !pairs.isEmpty:  // a key missing
            pairs.remove(at: random.below(pairs.count))
            self = .object(pairs)
        case (.object(var pairs), 2):  // an unknown key
            pairs.append(
                (key: random.pick(Self.oddStrings.filter { $0.count < 100 }), value: Self.randomValue(random: &random)))
            self = .object(pairs)
        case (.array(var items), 0) where !items.isEmpty:  // an element twice
            items.append(random.pick(items))
            self = .array(items)
        case (.array(var items), 1) where !items.isEmpty:
            items.remove(at: random.below(items.count))
            self = .array(items)
        case (_, 3):  // nesting far past any sane depth
            self = Self.nested(self, depth: random.pick([40, 200, 5_000]), objects: random.oneIn(2))
        case (.number, 4), (.string, 4):  // a number where text was, or the other way round
            self = random.oneIn(2) ? .number(random.pick(Self.oddNumbers)) : .string(random.pick(Self.oddStrings))
        case (_, 5):  // a value of another type
            self = Self.randomValue(random: &random)
        case (.string(let value), 6):  // the same text, a few characters changed
            var bytes = Array(value.utf8)
            FuzzBytes.mutate(&bytes, seeds: [], random: &random)
            self = .string(String(decoding: bytes, as: UTF8.self))
        default:
            self = random.oneIn(2) ? .number(random.pick(Self.oddNumbers)) : .string(random.pick(Self.oddStrings))
        }
    }
}

extension FuzzJSON {
    /// A JSON input made from `seeds`: mutated one to three times in the tree, then, now and
    /// then, also byte by byte (a trailing comma, a cut string).
    public static func input(from seeds: [FuzzJSON], random: inout FuzzRandom) -> [UInt8] {
        var document = random.pick(seeds)
        for _ in 0...random.below(3) { document.mutate(random: &random) }
        var bytes = document.bytes
        if random.oneIn(5) { FuzzBytes.mutate(&bytes, seeds: seeds.map(\.bytes), random: &random) }
        return bytes
    }
}
