import PipelineCore
import Synchronization

/// Deliveries from one queue, across reconnects, until cancelled.
///
/// ```swift
/// let consumer = connection.consume(queue: "iap.validate", prefetch: 200)
/// for try await delivery in consumer {
///     try await handle(delivery)
///     delivery.ack()
/// }
/// ```
public struct Consumer: AsyncSequence, Sendable {
    public typealias Element = Delivery

    let id: UInt64
    let stream: AsyncThrowingStream<Delivery, any Error>
    let mailbox: Mailbox<ConnectionCommand>

    public func makeAsyncIterator() -> AsyncThrowingStream<Delivery, any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }

    /// Stops new deliveries; the sequence ends once the broker confirms. Deliveries
    /// already received can still be settled.
    public func cancel() {
        mailbox.send(.cancelConsumer(id: id))
    }
}

/// Deliveries from one queue put straight into a ``BatchBuffer`` by the connection's thread,
/// for a consumer that takes them in batches: the taker wakes once for what one socket read
/// brought, with no task in between to hand them over.
///
/// ```swift
/// let consumer = connection.consumeInBatches(queue: "iap.fulfil", prefetch: 1024)
/// while let batch = try await consumer.deliveries.next(max: 256) { ... }
/// ```
public struct BatchConsumer: Sendable {
    /// Finished when the consumer ends (cancelled, or the broker cancelled it: then with the error).
    public let deliveries: BatchBuffer<Delivery>
    let id: UInt64
    let mailbox: Mailbox<ConnectionCommand>

    /// Stops new deliveries; ``deliveries`` finishes once the broker confirms. Deliveries
    /// already received can still be settled.
    public func cancel() {
        mailbox.send(.cancelConsumer(id: id))
    }
}

/// Where a consumer's deliveries go.
enum DeliverySink: Sendable {
    case stream(AsyncThrowingStream<Delivery, any Error>.Continuation)
    case buffer(BatchBuffer<Delivery>)

    func yield(_ delivery: Delivery) {
        switch self {
        case .stream(let continuation): continuation.yield(delivery)
        case .buffer(let buffer): buffer.append(delivery)
        }
    }

    func finish(throwing error: (any Error)? = nil) {
        switch self {
        case .stream(let continuation): continuation.finish(throwing: error)
        case .buffer(let buffer): buffer.finish(throwing: error)
        }
    }
}

/// A consumer's registration, owned by the connection thread.
final class ConsumerRegistration: @unchecked Sendable {
    let id: UInt64
    let queue: String
    let prefetch: UInt16
    let sink: DeliverySink
    /// Channel and tag of the current subscription; nil while disconnected.
    var channel: UInt16?
    var consumerTag: String?
    var cancelling = false

    init(
        id: UInt64, queue: String, prefetch: UInt16, sink: DeliverySink
    ) {
        self.id = id
        self.queue = queue
        self.prefetch = prefetch
        self.sink = sink
    }
}
