import Broker
import Crypto
import Database
import Foundation
import Repositories
import SettlementWriter

extension DeadLetter {
    /// The archive's record of a delivery from the dead-letter queue.
    ///
    /// Letters dead-lettered by the validator carry our `x-iap-*` headers; ones the broker
    /// dead-lettered itself (a nack without requeue, the delivery limit) carry only
    /// RabbitMQ's `x-death`, which then gives the reason (`delivery_limit in iap.validate`)
    /// and the source queue. The id is a digest of the body and headers, so that the broker
    /// redelivering the same letter archives it once; a receipt that dies again after a
    /// replay dies with other headers (a new death time and the replay's marks).
    public init(delivery: Delivery, now: Date) {
        self.init(body: delivery.body, properties: delivery.properties, now: now)
    }

    /// The archive's records of a delivery from the dead-letter queue: one for each receipt
    /// of a pack (``MessagePack``), which only the broker dead-letters whole (the delivery
    /// limit), so that each receipt is marked dead, reviewed and replayed on its own;
    /// otherwise, and for a pack that cannot be read, the one ``init(delivery:now:)`` makes.
    public static func letters(of delivery: Delivery, now: Date) -> [DeadLetter] {
        guard delivery.properties.headers[MessagePack.partIDsHeader] != nil, let parts = delivery.parts else {
            return [DeadLetter(delivery: delivery, now: now)]
        }
        return parts.map { DeadLetter(body: $0.body, properties: $0.properties, now: now) }
    }

    init(body: [UInt8], properties: MessageProperties, now: Date) {
        var headers = properties.headers
        headers["x-delivery-count"] = nil
        let headersJSON = AMQPHeadersJSON.encode(headers)
        var hasher = SHA256()
        hasher.update(data: body)
        hasher.update(data: [UInt8(0)])
        hasher.update(data: Array(headersJSON.utf8))
        hasher.update(data: [UInt8(0)])
        hasher.update(data: Array((properties.messageID ?? "").utf8))
        let digest = hasher.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()

        let death = properties.deaths.first
        let receiptID = properties.messageID.flatMap { $0.isEmpty || $0.count > 128 ? nil : $0 }
        let reason =
            headers[MessageHeader.deadReason]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            ?? death.map { "\($0.reason) in \($0.queue)" } ?? "dead-lettered"
        let attempts = headers[MessageHeader.attempts]?.intValue ?? Int64(death?.count ?? 0)
        let deadAt = headers[MessageHeader.deadAt]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        // Headers come from whoever published: the archive must take the letter whatever they
        // hold (a letter is never nacked), so what the database cannot store is replaced.
        self.init(
            id: "dl_" + digest, receiptID: receiptID.map(Self.storable), accountID: nil, reason: Self.storable(reason),
            attempts: Int(max(0, attempts)),
            lastError: headers[MessageHeader.lastError]?.stringValue.map(Self.storable),
            sourceQueue: (headers[MessageHeader.sourceQueue]?.stringValue ?? death?.queue).map(Self.storable),
            body: Data(body), headers: Self.storable(headersJSON),
            deadAt: deadAt.map { SQLValue.storableDates.contains($0) ? $0 : now } ?? now, createdAt: now)
    }

    /// `text` with NUL, which no database column takes, replaced by U+FFFD.
    static func storable(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }
}
