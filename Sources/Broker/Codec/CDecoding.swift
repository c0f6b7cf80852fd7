import CRabbitMQ
import Foundation

/// Copies rabbitmq-c values out of its buffers into Swift values; the buffers are
/// recycled right after.
enum CDecoding {
    static func string(_ bytes: amqp_bytes_t) -> String {
        guard bytes.len > 0, let base = bytes.bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base, count: bytes.len), as: UTF8.self)
    }

    static func array(_ bytes: amqp_bytes_t) -> [UInt8] {
        guard bytes.len > 0, let base = bytes.bytes else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: bytes.len))
    }

    static func table(_ table: amqp_table_t) -> [String: AMQPValue] {
        var result: [String: AMQPValue] = [:]
        guard table.num_entries > 0, let entries = table.entries else { return result }
        result.reserveCapacity(Int(table.num_entries))
        for index in 0..<Int(table.num_entries) {
            result[string(entries[index].key)] = value(entries[index].value)
        }
        return result
    }

    static func value(_ field: amqp_field_value_t) -> AMQPValue {
        let v = field.value
        switch UInt32(field.kind) {
        case AMQP_FIELD_KIND_BOOLEAN.rawValue: return .bool(v.boolean != 0)
        case AMQP_FIELD_KIND_I8.rawValue: return .int(Int64(v.i8))
        case AMQP_FIELD_KIND_U8.rawValue: return .int(Int64(v.u8))
        case AMQP_FIELD_KIND_I16.rawValue: return .int(Int64(v.i16))
        case AMQP_FIELD_KIND_U16.rawValue: return .int(Int64(v.u16))
        case AMQP_FIELD_KIND_I32.rawValue: return .int(Int64(v.i32))
        case AMQP_FIELD_KIND_U32.rawValue: return .int(Int64(v.u32))
        case AMQP_FIELD_KIND_I64.rawValue: return .int(v.i64)
        case AMQP_FIELD_KIND_U64.rawValue: return .int(Int64(clamping: v.u64))
        case AMQP_FIELD_KIND_F32.rawValue: return .double(Double(v.f32))
        case AMQP_FIELD_KIND_F64.rawValue: return .double(v.f64)
        case AMQP_FIELD_KIND_UTF8.rawValue: return .string(string(v.bytes))
        case AMQP_FIELD_KIND_BYTES.rawValue: return .bytes(array(v.bytes))
        case AMQP_FIELD_KIND_TIMESTAMP.rawValue: return .timestamp(v.u64)
        case AMQP_FIELD_KIND_TABLE.rawValue: return .table(table(v.table))
        case AMQP_FIELD_KIND_ARRAY.rawValue:
            guard v.array.num_entries > 0, let entries = v.array.entries else { return .array([]) }
            return .array((0..<Int(v.array.num_entries)).map { value(entries[$0]) })
        case AMQP_FIELD_KIND_VOID.rawValue: return .void
        default: return .void
        }
    }

    static func properties(_ props: amqp_basic_properties_t) -> MessageProperties {
        let flags = props._flags
        func has(_ flag: Int32) -> Bool { flags & UInt32(flag) != 0 }
        return MessageProperties(
            contentType: has(AMQP_BASIC_CONTENT_TYPE_FLAG) ? string(props.content_type) : nil,
            persistent: has(AMQP_BASIC_DELIVERY_MODE_FLAG) && props.delivery_mode == 2,
            messageID: has(AMQP_BASIC_MESSAGE_ID_FLAG) ? string(props.message_id) : nil,
            correlationID: has(AMQP_BASIC_CORRELATION_ID_FLAG) ? string(props.correlation_id) : nil,
            type: has(AMQP_BASIC_TYPE_FLAG) ? string(props.type) : nil,
            timestamp: has(AMQP_BASIC_TIMESTAMP_FLAG)
                ? Date(timeIntervalSince1970: TimeInterval(props.timestamp)) : nil,
            headers: has(AMQP_BASIC_HEADERS_FLAG) ? table(props.headers) : [:]
        )
    }
}
