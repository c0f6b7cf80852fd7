import Foundation
import Logging
import PipelineCore
import ServiceLifecycle
import Synchronization

/// One connection to RabbitMQ, owned by a dedicated thread, that survives broker
/// restarts and, given several nodes of a cluster, the loss of its node: it reconnects
/// (to the next node of the list, with backoff once every node has failed), declares its
/// topology again and resubscribes its consumers.
///
/// ```swift
/// let connection = AMQPConnection(configuration: try AMQPConfiguration(url: url),
///                                 topology: PipelineTopology().topology, logger: logger)
/// // As a service in a ServiceGroup, or by hand:
/// connection.start()
/// try await connection.publish(OutgoingMessage(exchange: "iap.work", routingKey: "validate", body: bytes))
/// await connection.close()
/// ```
public final class AMQPConnection: Service, Sendable {
    public let configuration: AMQPConfiguration
    private let loop: ConnectionLoop
    private let started = Mutex<Thread?>(nil)
    private let consumerIDs = Atomic<UInt64>(0)

    /// Prepares a connection; nothing happens until ``start()`` or ``run()``.
    /// - Parameters:
    ///   - topology: declared on every connect, before any publish or consume.
    public init(configuration: AMQPConfiguration, topology: Topology = .empty, logger: Logger) {
        self.configuration = configuration
        self.loop = ConnectionLoop(configuration: configuration, topology: topology, logger: logger)
    }

    /// Starts the owner thread, which connects in the background. Idempotent.
    public func start() {
        started.withLock { thread in
            guard thread == nil else { return }
            let loop = self.loop
            let newThread = Thread(named: "iap-amqp") { loop.run() }
            newThread.start()
            thread = newThread
        }
    }

    /// Runs until graceful shutdown or cancellation, then closes the connection.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        await close()
    }

    /// Closes the connection: unconfirmed publishes fail with ``PublishError/shutdown``,
    /// consumers end, unsettled deliveries go back to their queues.
    public func close() async {
        let wasStarted = started.withLock { $0 != nil }
        guard wasStarted else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.mailbox.send(.close { continuation.resume() })
        }
    }

    /// Whether the connection is up right now.
    public var isConnected: Bool { loop.connected.load(ordering: .acquiring) }

    /// Whether the broker blocks this connection's publishing right now (a resource alarm:
    /// its disk or memory): publishes are not lost, but their confirms wait until it clears.
    public var isBlocked: Bool { loop.publishingBlocked.load(ordering: .relaxed) }

    /// The node the connection is up to right now; nil while disconnected.
    public var connectedNode: AMQPNode? {
        let index = loop.connectedNode.load(ordering: .relaxed)
        return configuration.nodes.indices.contains(index) ? configuration.nodes[index] : nil
    }

    /// The dead-peer options (``DeadPeer/read(socket:)``) the connection's socket carries now;
    /// nil while disconnected.
    public var socketOptions: [Int32]? {
        let fd = loop.socketFD.load(ordering: .relaxed)
        return fd < 0 ? nil : DeadPeer.read(socket: fd)
    }

    /// How many times the connection has been established, reconnects included.
    public var connectCount: Int { loop.connects.load(ordering: .relaxed) }

    /// Waits until the connection is up.
    /// - Throws: ``BrokerError`` with code `notConnected` after `timeout`.
    public func waitUntilConnected(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isConnected {
            guard ContinuousClock.now < deadline else {
                throw BrokerError(.notConnected, "not connected to \(configuration.redactedURL) after \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - Publishing

    /// Publishes one message and waits for the broker's confirm.
    /// - Throws: ``PublishError``; see ``PublishError/isRetryable``.
    public func publish(_ message: OutgoingMessage) async throws(PublishError) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, PublishError>, Never>) in
            loop.mailbox.send(
                .publish([message], ackOnConfirm: nil, { _, result in continuation.resume(returning: result) }))
        }
        try result.get()
    }

    /// Publishes messages back to back, many confirms in flight, and waits for all.
    /// - Returns: each message's outcome, in order.
    public func publish(_ messages: [OutgoingMessage]) async -> [Result<Void, PublishError>] {
        await send(messages, ackOnConfirm: nil)
    }

    /// Publishes messages back to back and, once the broker has confirmed every one, acks
    /// `delivery` on the connection's thread before this returns: handing a message on and
    /// settling it cost the connection one wake-up, not two. When any message fails,
    /// `delivery` is left unsettled, for the caller to settle.
    /// - Returns: each message's outcome, in order.
    public func publish(_ messages: [OutgoingMessage], thenAck delivery: Delivery) async -> [Result<Void, PublishError>]
    {
        await withCheckedContinuation { continuation in
            publish(messages, thenAck: delivery) { continuation.resume(returning: $0) }
        }
    }

    /// The same, calling `completion` on the connection's thread (``publish(_:completion:)``):
    /// a caller that need not wait hears of the outcome without a task woken for it.
    public func publish(
        _ messages: [OutgoingMessage], thenAck delivery: Delivery,
        completion: @escaping @Sendable ([Result<Void, PublishError>]) -> Void
    ) {
        let settler = delivery.settler
        // A delivery of another connection is acked through its own.
        guard settler.mailbox === loop.mailbox, !messages.isEmpty else {
            return publish(messages) { results in
                if results.allSatisfy({ (try? $0.get()) != nil }) { delivery.ack() }
                completion(results)
            }
        }
        let ack = AckOnConfirm(channel: settler.channel, epoch: settler.epoch, tag: delivery.deliveryTag)
        send(messages, ackOnConfirm: ack, completion: completion)
    }

    /// Publishes messages back to back and calls `completion` with each one's outcome, in
    /// order, once the broker has settled the last: on the connection's thread, so a caller
    /// that need not wait (the intake's relay) wakes no task to hear of it. `completion` must
    /// be quick and must not block.
    public func publish(
        _ messages: [OutgoingMessage], completion: @escaping @Sendable ([Result<Void, PublishError>]) -> Void
    ) {
        send(messages, ackOnConfirm: nil, completion: completion)
    }

    private func send(_ messages: [OutgoingMessage], ackOnConfirm: AckOnConfirm?) async
        -> [Result<Void, PublishError>]
    {
        await withCheckedContinuation { continuation in
            send(messages, ackOnConfirm: ackOnConfirm) { continuation.resume(returning: $0) }
        }
    }

    private func send(
        _ messages: [OutgoingMessage], ackOnConfirm: AckOnConfirm?,
        completion: @escaping @Sendable ([Result<Void, PublishError>]) -> Void
    ) {
        guard !messages.isEmpty else { return completion([]) }
        let collector = BatchCollector(count: messages.count)
        collector.onComplete(completion)
        loop.mailbox.send(
            .publish(messages, ackOnConfirm: ackOnConfirm, { index, result in collector.record(index, result) }))
    }

    // MARK: - Consuming

    /// Consumes from `queue` with manual acknowledgement.
    /// - Parameters:
    ///   - prefetch: how many unacknowledged deliveries the broker may send at once.
    public func consume(queue: String, prefetch: Int) -> Consumer {
        let id = consumerIDs.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncThrowingStream<Delivery, any Error>.makeStream()
        continuation.onTermination = { [mailbox = loop.mailbox] termination in
            if case .cancelled = termination { mailbox.send(.cancelConsumer(id: id)) }
        }
        start(id: id, queue: queue, prefetch: prefetch, sink: .stream(continuation))
        return Consumer(id: id, stream: stream, mailbox: loop.mailbox)
    }

    /// Consumes from `queue` into a ``BatchConsumer``'s buffer, with manual acknowledgement.
    /// - Parameters:
    ///   - prefetch: how many unacknowledged deliveries the broker may send at once.
    public func consumeInBatches(queue: String, prefetch: Int) -> BatchConsumer {
        let id = consumerIDs.add(1, ordering: .relaxed).newValue
        let buffer = BatchBuffer<Delivery>()
        start(id: id, queue: queue, prefetch: prefetch, sink: .buffer(buffer))
        return BatchConsumer(deliveries: buffer, id: id, mailbox: loop.mailbox)
    }

    private func start(id: UInt64, queue: String, prefetch: Int, sink: DeliverySink) {
        let registration = ConsumerRegistration(
            id: id, queue: queue, prefetch: UInt16(clamping: max(1, prefetch)), sink: sink)
        loop.mailbox.send(.startConsumer(registration))
    }

    // MARK: - Administration

    /// Runs round trips on the control channel, on the connection's thread.
    /// - Throws: ``BrokerError`` (`notConnected` while the broker is away).
    public func withControlChannel<T: Sendable>(
        _ body: @escaping @Sendable (ControlChannel) throws(BrokerError) -> T
    ) async throws(BrokerError) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, BrokerError>, Never>) in
            loop.mailbox.send(
                .control { channel in
                    guard let channel else {
                        return continuation.resume(returning: .failure(BrokerError(.notConnected, "not connected")))
                    }
                    do throws(BrokerError) {
                        continuation.resume(returning: .success(try body(channel)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                })
        }
        return try result.get()
    }

    /// Declares more topology now (it is not redeclared on reconnect).
    public func declare(_ topology: Topology) async throws(BrokerError) {
        _ = try await withControlChannel { channel throws(BrokerError) in try channel.declare(topology) }
    }

    /// A queue's ready messages and consumers.
    public func queueStatus(_ queue: String) async throws(BrokerError) -> QueueStatus {
        try await withControlChannel { channel throws(BrokerError) in try channel.queueStatus(queue) }
    }
}

/// Gathers the per-message outcomes of a batch publish and reports once.
private final class BatchCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Void, PublishError>]
    private var remaining: Int
    private var completion: (@Sendable ([Result<Void, PublishError>]) -> Void)?

    init(count: Int) {
        results = Array(repeating: .failure(.notConnected), count: count)
        remaining = count
    }

    func onComplete(_ completion: @escaping @Sendable ([Result<Void, PublishError>]) -> Void) {
        self.completion = completion
    }

    func record(_ index: Int, _ result: Result<Void, PublishError>) {
        lock.lock()
        results[index] = result
        remaining -= 1
        let done = remaining == 0 ? results : nil
        lock.unlock()
        if let done { completion?(done) }
    }
}
