import CRabbitMQ
import Foundation

/// Owns the C memory behind one call into rabbitmq-c (strings, tables) and frees it
/// together once the call has returned; rabbitmq-c encodes synchronously.
final class CArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit { reset() }

    func reset() {
        for pointer in allocations { free(pointer) }
        allocations.removeAll(keepingCapacity: true)
    }

    func bytes(_ string: String) -> amqp_bytes_t {
        var string = string
        return string.withUTF8 { bytes($0) }
    }

    func bytes(_ buffer: UnsafeBufferPointer<UInt8>) -> amqp_bytes_t {
        guard buffer.count > 0, let memory = malloc(buffer.count) else { return amqp_empty_bytes }
        memory.copyMemory(from: buffer.baseAddress!, byteCount: buffer.count)
        allocations.append(memory)
        return amqp_bytes_t(len: buffer.count, bytes: memory)
    }

    func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let memory = malloc(max(1, count) * MemoryLayout<T>.stride)!
        allocations.append(memory)
        return memory.bindMemory(to: T.self, capacity: count)
    }

    func table(_ values: [String: AMQPValue]) -> amqp_table_t {
        guard !values.isEmpty else { return amqp_empty_table }
        let entries = allocate(amqp_table_entry_t.self, count: values.count)
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            entries[index] = amqp_table_entry_t(key: bytes(key), value: field(value))
        }
        return amqp_table_t(num_entries: Int32(values.count), entries: entries)
    }

    func field(_ value: AMQPValue) -> amqp_field_value_t {
        var field = amqp_field_value_t()
        switch value {
        case .bool(let b):
            field.kind = UInt8(AMQP_FIELD_KIND_BOOLEAN.rawValue)
            field.value.boolean = b ? 1 : 0
        case .int(let i):
            field.kind = UInt8(AMQP_FIELD_KIND_I64.rawValue)
            field.value.i64 = i
        case .double(let d):
            field.kind = UInt8(AMQP_FIELD_KIND_F64.rawValue)
            field.value.f64 = d
        case .string(let s):
            field.kind = UInt8(AMQP_FIELD_KIND_UTF8.rawValue)
            field.value.bytes = bytes(s)
        case .bytes(let b):
            field.kind = UInt8(AMQP_FIELD_KIND_BYTES.rawValue)
            field.value.bytes = b.withUnsafeBufferPointer { bytes($0) }
        case .timestamp(let t):
            field.kind = UInt8(AMQP_FIELD_KIND_TIMESTAMP.rawValue)
            field.value.u64 = t
        case .array(let values):
            let entries = allocate(amqp_field_value_t.self, count: values.count)
            for (index, element) in values.enumerated() { entries[index] = self.field(element) }
            field.kind = UInt8(AMQP_FIELD_KIND_ARRAY.rawValue)
            field.value.array = amqp_array_t(num_entries: Int32(values.count), entries: entries)
        case .table(let values):
            field.kind = UInt8(AMQP_FIELD_KIND_TABLE.rawValue)
            field.value.table = table(values)
        case .void:
            field.kind = UInt8(AMQP_FIELD_KIND_VOID.rawValue)
        }
        return field
    }

    /// Fills `amqp_basic_properties_t` from Swift properties plus extra headers.
    func properties(_ properties: MessageProperties, extraHeaders: [String: AMQPValue] = [:]) -> amqp_basic_properties_t
    {
        var props = amqp_basic_properties_t()
        var flags: UInt32 = 0
        if let contentType = properties.contentType {
            props.content_type = bytes(contentType)
            flags |= UInt32(AMQP_BASIC_CONTENT_TYPE_FLAG)
        }
        props.delivery_mode = properties.persistent ? 2 : 1
        flags |= UInt32(AMQP_BASIC_DELIVERY_MODE_FLAG)
        if let messageID = properties.messageID {
            props.message_id = bytes(messageID)
            flags |= UInt32(AMQP_BASIC_MESSAGE_ID_FLAG)
        }
        if let correlationID = properties.correlationID {
            props.correlation_id = bytes(correlationID)
            flags |= UInt32(AMQP_BASIC_CORRELATION_ID_FLAG)
        }
        if let type = properties.type {
            props.type = bytes(type)
            flags |= UInt32(AMQP_BASIC_TYPE_FLAG)
        }
        if let timestamp = properties.timestamp {
            props.timestamp = UInt64(max(0, timestamp.timeIntervalSince1970))
            flags |= UInt32(AMQP_BASIC_TIMESTAMP_FLAG)
        }
        var headers = properties.headers
        headers.merge(extraHeaders) { _, new in new }
        if !headers.isEmpty {
            props.headers = table(headers)
            flags |= UInt32(AMQP_BASIC_HEADERS_FLAG)
        }
        props._flags = flags
        return props
    }
}
