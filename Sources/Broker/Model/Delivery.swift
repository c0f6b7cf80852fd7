/// A message handed to a consumer. Settle it exactly once with ``ack(multiple:)``,
/// ``nack(requeue:multiple:)`` or ``reject(requeue:)``; a delivery left unsettled when its
/// connection drops goes back to the queue for another consumer.
public struct Delivery: Sendable {
    public let body: [UInt8]
    public let properties: MessageProperties
    public let exchange: String
    public let routingKey: String
    /// The broker delivered this message before, to this or another consumer.
    public let redelivered: Bool
    public let deliveryTag: UInt64
    let settler: Settler

    /// Acknowledges the message (and, with `multiple`, every earlier one on this consumer).
    public func ack(multiple: Bool = false) {
        settler.settle(.ack(multiple: multiple), tag: deliveryTag)
    }

    /// Negatively acknowledges: requeue, or dead-letter when the queue has a DLX.
    public func nack(requeue: Bool, multiple: Bool = false) {
        settler.settle(.nack(requeue: requeue, multiple: multiple), tag: deliveryTag)
    }

    public func reject(requeue: Bool) {
        settler.settle(.reject(requeue: requeue), tag: deliveryTag)
    }

    /// How many times quorum queues have delivered this message before (`x-delivery-count`).
    public var deliveryCount: Int {
        Int(properties.headers["x-delivery-count"]?.intValue ?? 0)
    }

    /// The broker's `x-death` history: one entry per queue and reason, newest first.
    public var deaths: [Death] { properties.deaths }

    /// One entry of RabbitMQ's `x-death` header.
    public struct Death: Hashable, Sendable {
        public let queue: String
        /// `rejected`, `expired`, `maxlen` or `delivery_limit`.
        public let reason: String
        public let count: Int
        public let exchange: String

        init(_ table: [String: AMQPValue]) {
            queue = table["queue"]?.stringValue ?? ""
            reason = table["reason"]?.stringValue ?? ""
            count = Int(table["count"]?.intValue ?? 0)
            exchange = table["exchange"]?.stringValue ?? ""
        }
    }
}

extension MessageProperties {
    /// The broker's `x-death` history in these headers: one entry per queue and reason, newest first.
    public var deaths: [Delivery.Death] {
        (headers["x-death"]?.arrayValue ?? []).compactMap { $0.tableValue.map(Delivery.Death.init) }
    }
}

/// Routes a delivery's settlement to the thread that owns its channel.
struct Settler: Sendable {
    enum Action: Sendable {
        case ack(multiple: Bool)
        case nack(requeue: Bool, multiple: Bool)
        case reject(requeue: Bool)
    }

    let mailbox: Mailbox<ConnectionCommand>
    let channel: UInt16
    /// Deliveries of an earlier connection can no longer be settled: the broker has
    /// already requeued them.
    let epoch: UInt64

    func settle(_ action: Action, tag: UInt64) {
        mailbox.send(.settle(channel: channel, epoch: epoch, tag: tag, action: action))
    }
}
