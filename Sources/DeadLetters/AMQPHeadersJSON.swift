import Broker
import Foundation

/// AMQP headers as a JSON object, the form the archive stores them in: strings, numbers
/// and booleans as themselves, byte strings as base64, tables and arrays nested. Keys are
/// sorted, so the same headers always give the same text.
enum AMQPHeadersJSON {
    static func encode(_ headers: [String: AMQPValue]) -> String {
        let object = headers.mapValues(jsonObject)
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonObject(_ value: AMQPValue) -> Any {
        switch value {
        case .bool(let b): b
        case .int(let i): i
        case .double(let d): d.isFinite ? d : String(d)
        case .string(let s): s
        case .bytes(let bytes): Data(bytes).base64EncodedString()
        case .timestamp(let t): t
        case .array(let values): values.map(jsonObject)
        case .table(let table): table.mapValues(jsonObject)
        case .void: NSNull()
        }
    }
}
