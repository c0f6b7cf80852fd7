import Foundation

/// Several receipts' messages for one queue, sent as one.
///
/// A message costs the broker the same whatever it carries (its routing, its quorum queue's
/// log entry, the confirm, the delivery, the ack), so the stages that hand on several
/// receipts at once pack them: the relay the receipts of one commit, the validator the
/// verdicts on one message's receipts. Under load a commit holds many and the broker's
/// work per receipt falls with them; a quiet intake commits one at a time and a receipt
/// alone travels as it always did (BENCHMARKS.md, issue 29).
///
/// A pack's body is the JSON array of its parts' bodies, byte for byte, so it stays
/// readable in the broker's UI; each part's message id and headers travel in the pack's
/// headers, so that a part read back is the message it would have been alone. What one
/// receipt's attempt sends on (a retry, a wait, a dead letter) is that receipt's alone: the
/// delay tiers and the dead-letter queue hold one receipt a message, as operators review them.
public enum MessagePack {
    /// The most parts one pack carries: enough that the broker's share per receipt is small,
    /// few enough that a pack redelivered after a crash asks the store again for little.
    public static let limit = 32
    /// The most body bytes a pack gathers: large receipts go fewer to a message, so that a
    /// pack stays far below the broker's message size limit and a consumer's memory. A part
    /// larger than this goes alone.
    public static let byteLimit = 1 << 20

    /// On a pack: its parts' message ids, in order (an array of strings).
    public static let partIDsHeader = "x-iap-part-ids"
    /// On a pack: each part's own headers, in order (an array of tables).
    public static let partHeadersHeader = "x-iap-part-headers"

    /// `messages` (each one receipt's JSON, all to the same exchange and routing key) packed
    /// in order, at most `limit` parts and about `byteLimit` bytes to a pack; a group of one
    /// goes as it was.
    /// - Returns: each message sent and the message ids of those of `messages` it carries.
    public static func pack(
        _ messages: [OutgoingMessage], limit: Int = limit, byteLimit: Int = byteLimit
    ) -> [(ids: [String], message: OutgoingMessage)] {
        var packed: [(ids: [String], message: OutgoingMessage)] = []
        var start = messages.startIndex
        while start < messages.endIndex {
            var end = start + 1
            var bytes = messages[start].body.count
            while end < messages.endIndex, end - start < max(1, limit),
                bytes + 1 + messages[end].body.count <= byteLimit
            {
                bytes += 1 + messages[end].body.count
                end += 1
            }
            let group = messages[start..<end]
            start = end
            guard let first = group.first else { continue }
            let ids = group.map { $0.properties.messageID ?? "" }
            guard group.count > 1 else {
                packed.append((ids, first))
                continue
            }
            var body: [UInt8] = [UInt8(ascii: "[")]
            body.reserveCapacity(group.reduce(2) { $0 + $1.body.count + 1 })
            for (index, message) in group.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += message.body
            }
            body.append(UInt8(ascii: "]"))
            var properties = first.properties
            properties.messageID = nil
            properties.headers = [
                partIDsHeader: .array(ids.map { .string($0) }),
                partHeadersHeader: .array(group.map { .table($0.properties.headers) }),
            ]
            packed.append(
                (
                    ids,
                    OutgoingMessage(
                        exchange: first.exchange, routingKey: first.routingKey, body: body, properties: properties)
                ))
        }
        return packed
    }

    /// How many receipts a message with these properties carries: its parts, or 1.
    public static func count(_ properties: MessageProperties) -> Int {
        properties.headers[partIDsHeader]?.arrayValue?.count ?? 1
    }

    /// The parts of a message: each as it would have been alone (the pack's headers, such as
    /// the broker's `x-death`, with the part's own over them); a message that is no pack is its
    /// own one part. Nil for a pack whose body and headers do not agree.
    public static func unpack(body: [UInt8], properties: MessageProperties) -> [MessagePart]? {
        guard let ids = properties.headers[partIDsHeader]?.arrayValue else {
            return [MessagePart(body: body, properties: properties)]
        }
        guard let own = properties.headers[partHeadersHeader]?.arrayValue, own.count == ids.count,
            let bodies = JSONArraySplitter.elements(of: body), bodies.count == ids.count
        else { return nil }
        var shared = properties
        shared.headers[partIDsHeader] = nil
        shared.headers[partHeadersHeader] = nil
        return bodies.indices.map { index in
            var part = shared
            part.messageID = ids[index].stringValue
            part.headers.merge(own[index].tableValue ?? [:]) { _, own in own }
            return MessagePart(body: bodies[index], properties: part)
        }
    }
}

/// One receipt's message, alone or out of a pack (``MessagePack``).
public struct MessagePart: Sendable {
    public let body: [UInt8]
    public let properties: MessageProperties

    public init(body: [UInt8], properties: MessageProperties) {
        self.body = body
        self.properties = properties
    }
}

extension Delivery {
    /// This message's parts (``MessagePack/unpack(body:properties:)``).
    public var parts: [MessagePart]? { MessagePack.unpack(body: body, properties: properties) }

    /// How many receipts this message carries, as its headers say.
    public var partCount: Int { MessagePack.count(properties) }
}
