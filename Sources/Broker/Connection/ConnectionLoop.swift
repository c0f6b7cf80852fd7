import CRabbitMQ
import Foundation
import Glibc
import Logging
import PipelineCore
import Synchronization

/// The thread that owns one rabbitmq-c connection; rabbitmq-c is not thread-safe, so
/// every call into it happens here. Other code reaches it through ``mailbox``.
///
/// Each turn of the loop runs the waiting commands, reads every frame the socket has,
/// then sleeps in `poll` on the socket and the mailbox's eventfd. When the connection
/// drops it fails the confirms in flight (the caller retries them), reconnects (to the
/// next node of the list, see ``NodeRotation``; with growing delays once every node has
/// failed), declares the topology again and resubscribes every consumer.
final class ConnectionLoop: @unchecked Sendable {
    let mailbox = Mailbox<ConnectionCommand>()
    let connected = Atomic<Bool>(false)
    /// Counts successful connects, for tests and metrics.
    let connects = Atomic<Int>(0)
    /// The index of the node connected to, -1 while disconnected.
    let connectedNode = Atomic<Int>(-1)
    /// The connection's socket, -1 while disconnected: for reading its options in tests.
    let socketFD = Atomic<Int32>(-1)
    /// ``blocked``, for other threads.
    let publishingBlocked = Atomic<Bool>(false)

    let configuration: AMQPConfiguration
    let topology: Topology
    let logger: Logger

    // Everything below is touched by the owner thread only.
    var state: amqp_connection_state_t?
    var epoch: UInt64 = 0
    var nextPublishTag: UInt64 = 1
    var confirms = ConfirmTracker<PendingConfirm>()
    var consumers: [UInt64: ConsumerRegistration] = [:]
    var channelConsumers: [UInt16: ConsumerRegistration] = [:]
    /// Consumer channels open on this connection. A channel outlives its consumer's
    /// cancel, so that deliveries already handed out can still be settled.
    var consumerChannels = Set<UInt16>()
    var nextConsumerChannel: UInt16 = Channel.firstConsumer
    var contents: [UInt16: ContentAssembler] = [:]
    var acks: [UInt16: AckCoalescer] = [:]
    /// When the single acks gathered so far must go out (``AMQPConfiguration/ackLinger``
    /// after the first of them), and how many there are.
    var acksDueAt: ContinuousClock.Instant?
    var acksWaiting = 0
    var rotation: NodeRotation
    /// Since when publishes have gone without an ack (awaited or nacked); nil after an ack
    /// that left none pending.
    var confirmsStalledSince: ContinuousClock.Instant?
    /// Whether the broker has blocked publishing (a resource alarm): confirms may then wait.
    var blocked = false {
        didSet { publishingBlocked.store(blocked, ordering: .relaxed) }
    }
    /// Since when the broker has blocked publishing, for the log line when it stops.
    var blockedSince: ContinuousClock.Instant?
    /// Rounds of connect failures (every node tried) since the last success.
    var reconnectAttempt = 0
    var nextConnectAt = ContinuousClock.now
    var stopping = false
    var closeCompletions: [@Sendable () -> Void] = []
    let arena = CArena()

    /// Gathered acks that go out without waiting for the linger's end.
    static let acksAtOnce = 64

    enum Channel {
        static let publish: UInt16 = 2
        static let firstConsumer: UInt16 = 3
    }

    init(configuration: AMQPConfiguration, topology: Topology, logger: Logger) {
        self.configuration = configuration
        self.topology = topology
        self.logger = logger
        self.rotation = NodeRotation(count: configuration.nodes.count)
    }

    // MARK: - The loop

    func run() {
        while !stopping {
            if state == nil {
                reconnectTurn()
            } else {
                connectedTurn()
            }
        }
        shutdown()
    }

    func connectedTurn() {
        for command in mailbox.drain() { execute(command) }
        flushAcksIfDue()
        guard state != nil, !stopping else { return }
        let mayHaveMore = readFrames(limit: 4096)
        checkConfirmsProgress()
        // Acks queued by the confirms just read (``AckOnConfirm``) leave in this turn.
        flushAcksIfDue()
        guard let state, !stopping, !mayHaveMore, mailbox.isEmpty else { return }
        var fds = [
            pollfd(fd: amqp_get_sockfd(state), events: Int16(POLLIN), revents: 0),
            pollfd(fd: mailbox.eventFD, events: Int16(POLLIN), revents: 0),
        ]
        // Wake at least every second so that rabbitmq-c can send heartbeats when idle.
        _ = poll(&fds, 2, pollTimeout())
    }

    /// Milliseconds to sleep in `poll`: a second, or until the gathered acks are due.
    func pollTimeout() -> Int32 {
        guard let due = acksDueAt else { return 1000 }
        let wait = (due - .now) / .milliseconds(1)
        return Int32(min(1000, max(0, wait.rounded(.up))))
    }

    func reconnectTurn() {
        let now = ContinuousClock.now
        if now >= nextConnectAt {
            let node = configuration.nodes[rotation.next]
            do {
                try connect(to: node)
                rotation.connected()
                reconnectAttempt = 0
                return
            } catch {
                connectFailed(node, error)
            }
        }
        var fd = pollfd(fd: mailbox.eventFD, events: Int16(POLLIN), revents: 0)
        let wait = max(.zero, nextConnectAt - .now)
        _ = poll(&fd, 1, Int32(clamping: wait.milliseconds))
        for command in mailbox.drain() { execute(command) }
    }

    /// Moves on to the next node at once, or backs off when every node has failed in turn.
    func connectFailed(_ node: AMQPNode, _ error: BrokerError) {
        guard rotation.connectFailed() else {
            nextConnectAt = .now
            let next = configuration.nodes[rotation.next]
            logger.warning(
                "broker node unreachable, trying the next",
                metadata: ["amqp.node": "\(node)", "error": "\(error)", "next": "\(next)"])
            return
        }
        let delay = backoff(attempt: reconnectAttempt)
        reconnectAttempt += 1
        nextConnectAt = .now + delay
        let message =
            configuration.nodes.count == 1 ? "broker unreachable, retrying" : "no broker node answers, retrying"
        logger.warning(
            "\(message)",
            metadata: [
                "amqp.url": "\(configuration.redactedURL)", "error": "\(error)",
                "retry_in_ms": "\(delay.milliseconds)", "attempt": "\(reconnectAttempt)",
            ])
    }

    func backoff(attempt: Int) -> Duration {
        // Jitter spreads the reconnects of many workers after a broker restart.
        Backoff(
            base: configuration.reconnectDelay.lowerBound, cap: configuration.reconnectDelay.upperBound,
            jitter: 0.8...1.0
        ).delay(afterFailures: attempt + 1)
    }

    // MARK: - Connecting

    func connect(to node: AMQPNode) throws(BrokerError) {
        guard let newState = amqp_new_connection() else { throw BrokerError(.connection, "out of memory") }
        do {
            try open(newState, node: node)
        } catch {
            amqp_destroy_connection(newState)
            throw error
        }
        state = newState
        epoch += 1
        nextPublishTag = 1
        confirmsStalledSince = nil
        blocked = false
        nextConsumerChannel = Channel.firstConsumer
        connectedNode.store(rotation.next, ordering: .relaxed)
        socketFD.store(amqp_get_sockfd(newState), ordering: .relaxed)
        connected.store(true, ordering: .releasing)
        connects.add(1, ordering: .relaxed)
        logger.info("connected to broker", metadata: ["amqp.node": "\(node)", "epoch": "\(epoch)"])
        for consumer in consumers.values.sorted(by: { $0.id < $1.id }) where !consumer.cancelling {
            subscribe(consumer)
            if state == nil { return }
        }
    }

    func open(_ newState: amqp_connection_state_t, node: AMQPNode) throws(BrokerError) {
        guard let socket = amqp_tcp_socket_new(newState) else { throw BrokerError(.connection, "cannot create socket") }
        var connectTimeout = timeval(configuration.connectTimeout)
        let status = amqp_socket_open_noblock(socket, node.host, Int32(node.port), &connectTimeout)
        guard status == AMQP_STATUS_OK.rawValue else {
            throw BrokerError(
                .connection, "cannot connect to \(node): \(String(cString: amqp_error_string2(status)))")
        }
        // Before the handshake, which a silent node would hold too.
        do {
            try configuration.deadPeer.apply(toSocket: amqp_get_sockfd(newState))
        } catch {
            throw BrokerError(.connection, "\(node): \(error)")
        }
        var rpcTimeout = timeval(configuration.rpcTimeout)
        _ = amqp_set_handshake_timeout(newState, &rpcTimeout)
        _ = amqp_set_rpc_timeout(newState, &rpcTimeout)
        let login = iap_amqp_login_plain(
            newState, configuration.vhost, 0, 131_072, Int32(configuration.heartbeat), configuration.user,
            configuration.password)
        try checkSetup(login, newState, channel: 0, "log in as \(configuration.user)")
        _ = amqp_channel_open(newState, ControlChannel.number)
        try checkSetup(amqp_get_rpc_reply(newState), newState, channel: ControlChannel.number, "open control channel")
        let kept = try ControlChannel(state: newState).declare(topology)
        if !kept.isEmpty {
            // The members are the operator's: `rabbitmq-queues quorum_status` shows them, `grow` adds.
            logger.notice(
                "queues exist with another initial group size, kept with the members they have",
                metadata: ["queues": "\(kept.joined(separator: ","))"])
        }
        try openPublishChannel(newState)
    }

    func openPublishChannel(_ state: amqp_connection_state_t) throws(BrokerError) {
        _ = amqp_channel_open(state, Channel.publish)
        try checkSetup(amqp_get_rpc_reply(state), state, channel: Channel.publish, "open publish channel")
        _ = amqp_confirm_select(state, Channel.publish)
        try checkSetup(amqp_get_rpc_reply(state), state, channel: Channel.publish, "select publisher confirms")
        nextPublishTag = 1
    }

    func checkSetup(
        _ reply: amqp_rpc_reply_t, _ state: amqp_connection_state_t, channel: UInt16, _ context: String
    ) throws(BrokerError) {
        do {
            try RPCReply.check(reply, state: state, channel: channel, context: context)
        } catch {
            switch error {
            case .channelClosed(let message): throw BrokerError(.refused, message)
            case .connectionClosed(let message): throw BrokerError(.connection, message)
            }
        }
    }

    /// Opens a channel for the consumer and starts consuming; a refusal (say, the queue
    /// does not exist) ends its sequence with the broker's reason.
    func subscribe(_ consumer: ConsumerRegistration) {
        guard let state else { return }
        let channel = nextConsumerChannel
        nextConsumerChannel += 1
        do {
            _ = amqp_channel_open(state, channel)
            try checkSetup(amqp_get_rpc_reply(state), state, channel: channel, "open consumer channel")
            _ = amqp_basic_qos(state, channel, 0, consumer.prefetch, 0)
            try checkSetup(amqp_get_rpc_reply(state), state, channel: channel, "set prefetch")
            let ok = amqp_basic_consume(
                state, channel, arena.bytes(consumer.queue), amqp_empty_bytes, 0, 0, 0, amqp_empty_table)
            arena.reset()
            try checkSetup(amqp_get_rpc_reply(state), state, channel: channel, "consume from \(consumer.queue)")
            consumer.channel = channel
            consumer.consumerTag = ok.map { CDecoding.string($0.pointee.consumer_tag) }
            channelConsumers[channel] = consumer
            consumerChannels.insert(channel)
        } catch {
            if error.code == .refused {
                consumers[consumer.id] = nil
                consumer.sink.finish(throwing: error)
            } else {
                connectionLost(error.message)
            }
        }
    }

    // MARK: - Commands

    func execute(_ command: ConnectionCommand) {
        switch command {
        case .publish(let messages, let ackOnConfirm, let completion):
            publish(
                messages, ackOnConfirm.map { ackWhenConfirmed($0, count: messages.count, completion) } ?? completion)
        case .settle(let channel, let commandEpoch, let tag, let action):
            settle(channel: channel, epoch: commandEpoch, tag: tag, action: action)
        case .startConsumer(let consumer):
            consumers[consumer.id] = consumer
            subscribe(consumer)
        case .cancelConsumer(let id):
            cancelConsumer(id)
        case .control(let body):
            guard let state else { return body(nil) }
            let control = ControlChannel(state: state)
            body(control)
            if let reason = control.connectionBroken { connectionLost(reason) }
        case .close(let completion):
            stopping = true
            closeCompletions.append(completion)
        }
    }

    func publish(_ messages: [OutgoingMessage], _ completion: @escaping ConnectionCommand.Completion) {
        guard let state else {
            for index in messages.indices { completion(index, .failure(stopping ? .shutdown : .notConnected)) }
            return
        }
        for (index, message) in messages.enumerated() {
            let tag = nextPublishTag
            // A basic.return carries no delivery tag; this header ties it to its publish.
            let extra: [String: AMQPValue] = message.mandatory ? [Header.publishTag: .int(Int64(tag))] : [:]
            var properties = arena.properties(message.properties, extraHeaders: extra)
            let status = message.body.withUnsafeBytes { body in
                amqp_basic_publish(
                    state, Channel.publish, arena.bytes(message.exchange), arena.bytes(message.routingKey),
                    message.mandatory ? 1 : 0, 0, &properties,
                    amqp_bytes_t(len: body.count, bytes: UnsafeMutableRawPointer(mutating: body.baseAddress)))
            }
            arena.reset()
            guard status == AMQP_STATUS_OK.rawValue else {
                let reason = "publish failed: \(String(cString: amqp_error_string2(status)))"
                for rest in index..<messages.count { completion(rest, .failure(.unconfirmed(reason: reason))) }
                connectionLost(reason)
                return
            }
            nextPublishTag += 1
            confirms.add(tag: tag, waiter: PendingConfirm(completion: completion, index: index))
            if confirmsStalledSince == nil { confirmsStalledSince = .now }
        }
    }

    func cancelConsumer(_ id: UInt64) {
        guard let consumer = consumers[id], !consumer.cancelling else { return }
        consumer.cancelling = true
        guard let state, let channel = consumer.channel, let tag = consumer.consumerTag else {
            consumers[id] = nil
            consumer.sink.finish()
            return
        }
        var cancel = amqp_basic_cancel_t(consumer_tag: arena.bytes(tag), nowait: 0)
        let status = amqp_send_method(state, channel, AMQPMethod.basicCancel, &cancel)
        arena.reset()
        if status != AMQP_STATUS_OK.rawValue { connectionLost("cancel failed") }
    }
}

extension timeval {
    init(_ duration: Duration) {
        let micros = duration.microseconds
        self.init(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
    }
}
