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

/// A consumer's registration, owned by the connection thread.
final class ConsumerRegistration: @unchecked Sendable {
    let id: UInt64
    let queue: String
    let prefetch: UInt16
    let continuation: AsyncThrowingStream<Delivery, any Error>.Continuation
    /// Channel and tag of the current subscription; nil while disconnected.
    var channel: UInt16?
    var consumerTag: String?
    var cancelling = false

    init(
        id: UInt64, queue: String, prefetch: UInt16, continuation: AsyncThrowingStream<Delivery, any Error>.Continuation
    ) {
        self.id = id
        self.queue = queue
        self.prefetch = prefetch
        self.continuation = continuation
    }
}
