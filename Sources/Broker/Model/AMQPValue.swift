/// A value in an AMQP field table: message headers and queue arguments.
///
/// Only the kinds RabbitMQ actually sends and our topology needs; anything else decodes
/// as ``bytes`` so that an unexpected header never fails a delivery.
public enum AMQPValue: Hashable, Sendable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case timestamp(UInt64)
    case array([AMQPValue])
    case table([String: AMQPValue])
    case void

    /// The value as a string, when it is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value as an integer, when it is one.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .timestamp(let t): return Int64(clamping: t)
        default: return nil
        }
    }

    public var arrayValue: [AMQPValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var tableValue: [String: AMQPValue]? {
        if case .table(let t) = self { return t }
        return nil
    }
}

extension AMQPValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
