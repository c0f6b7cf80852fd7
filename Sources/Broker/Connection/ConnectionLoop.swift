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
/// drops it fails the confirms in flight (the caller retries them), reconnects with
/// growing delays, declares the topology again and resubscribes every consumer.
final class ConnectionLoop: @unchecked Sendable {
    let mailbox = Mailbox<ConnectionCommand>()
    let connected = Atomic<Bool>(false)
    /// Counts successful connects, for tests and metrics.
    let connects = Atomic<Int>(0)

    private let configuration: AMQPConfiguration
    private let topology: Topology
    private let logger: Logger

    // Everything below is touched by the owner thread only.
    private var state: amqp_connection_state_t?
    private var epoch: UInt64 = 0
    private var nextPublishTag: UInt64 = 1
    private var confirms = ConfirmTracker<PendingConfirm>()
    private var consumers: [UInt64: ConsumerRegistration] = [:]
    private var channelConsumers: [UInt16: ConsumerRegistration] = [:]
    /// Consumer channels open on this connection. A channel outlives its consumer's
    /// cancel, so that deliveries already handed out can still be settled.
    private var consumerChannels = Set<UInt16>()
    private var nextConsumerChannel: UInt16 = Channel.firstConsumer
    private var contents: [UInt16: ContentAssembler] = [:]
    private var acks: [UInt16: AckCoalescer] = [:]
    private var reconnectAttempt = 0
    private var nextConnectAt = ContinuousClock.now
    private var stopping = false
    private var closeCompletions: [@Sendable () -> Void] = []
    private let arena = CArena()

    private enum Channel {
        static let publish: UInt16 = 2
        static let firstConsumer: UInt16 = 3
    }

    init(configuration: AMQPConfiguration, topology: Topology, logger: Logger) {
        self.configuration = configuration
        self.topology = topology
        self.logger = logger
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

    private func connectedTurn() {
        for command in mailbox.drain() { execute(command) }
        flushAcks()
        guard state != nil, !stopping else { return }
        let mayHaveMore = readFrames(limit: 4096)
        guard let state, !stopping, !mayHaveMore, mailbox.isEmpty else { return }
        var fds = [
            pollfd(fd: amqp_get_sockfd(state), events: Int16(POLLIN), revents: 0),
            pollfd(fd: mailbox.eventFD, events: Int16(POLLIN), revents: 0),
        ]
        // Wake at least every second so that rabbitmq-c can send heartbeats when idle.
        _ = poll(&fds, 2, 1000)
    }

    private func reconnectTurn() {
        let now = ContinuousClock.now
        if now >= nextConnectAt {
            do {
                try connect()
                reconnectAttempt = 0
                return
            } catch {
                let delay = backoff(attempt: reconnectAttempt)
                reconnectAttempt += 1
                nextConnectAt = .now + delay
                logger.warning(
                    "broker unreachable, retrying",
                    metadata: [
                        "amqp.url": "\(configuration.redactedURL)", "error": "\(error)",
                        "retry_in_ms": "\(delay.milliseconds)",
                        "attempt": "\(reconnectAttempt)",
                    ])
            }
        }
        var fd = pollfd(fd: mailbox.eventFD, events: Int16(POLLIN), revents: 0)
        let wait = max(.zero, nextConnectAt - .now)
        _ = poll(&fd, 1, Int32(clamping: wait.milliseconds))
        for command in mailbox.drain() { execute(command) }
    }

    private func backoff(attempt: Int) -> Duration {
        let base = configuration.reconnectDelay.lowerBound * (1 << min(attempt, 16))
        let capped = min(base, configuration.reconnectDelay.upperBound)
        // Jitter spreads the reconnects of many workers after a broker restart.
        return capped * Double.random(in: 0.8...1.0)
    }

    // MARK: - Connecting

    private func connect() throws(BrokerError) {
        guard let newState = amqp_new_connection() else { throw BrokerError(.connection, "out of memory") }
        do {
            try open(newState)
        } catch {
            amqp_destroy_connection(newState)
            throw error
        }
        state = newState
        epoch += 1
        nextPublishTag = 1
        nextConsumerChannel = Channel.firstConsumer
        connected.store(true, ordering: .releasing)
        connects.add(1, ordering: .relaxed)
        logger.info("connected to broker", metadata: ["amqp.url": "\(configuration.redactedURL)", "epoch": "\(epoch)"])
        for consumer in consumers.values.sorted(by: { $0.id < $1.id }) where !consumer.cancelling {
            subscribe(consumer)
            if state == nil { return }
        }
    }

    private func open(_ newState: amqp_connection_state_t) throws(BrokerError) {
        guard let socket = amqp_tcp_socket_new(newState) else { throw BrokerError(.connection, "cannot create socket") }
        var connectTimeout = timeval(configuration.connectTimeout)
        let status = amqp_socket_open_noblock(socket, configuration.host, Int32(configuration.port), &connectTimeout)
        guard status == AMQP_STATUS_OK.rawValue else {
            throw BrokerError(
                .connection,
                "cannot connect to \(configuration.host):\(configuration.port): \(String(cString: amqp_error_string2(status)))"
            )
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
        let control = ControlChannel(state: newState)
        try control.declare(topology)
        try openPublishChannel(newState)
    }

    private func openPublishChannel(_ state: amqp_connection_state_t) throws(BrokerError) {
        _ = amqp_channel_open(state, Channel.publish)
        try checkSetup(amqp_get_rpc_reply(state), state, channel: Channel.publish, "open publish channel")
        _ = amqp_confirm_select(state, Channel.publish)
        try checkSetup(amqp_get_rpc_reply(state), state, channel: Channel.publish, "select publisher confirms")
        nextPublishTag = 1
    }

    private func checkSetup(
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
    private func subscribe(_ consumer: ConsumerRegistration) {
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
                consumer.continuation.finish(throwing: error)
            } else {
                connectionLost(error.message)
            }
        }
    }

    // MARK: - Commands

    private func execute(_ command: ConnectionCommand) {
        switch command {
        case .publish(let messages, let completion):
            publish(messages, completion)
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

    private func publish(_ messages: [OutgoingMessage], _ completion: @escaping ConnectionCommand.Completion) {
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
        }
    }

    private func settle(channel: UInt16, epoch settleEpoch: UInt64, tag: UInt64, action: Settler.Action) {
        // After a reconnect the broker has requeued the old deliveries; their tags mean
        // nothing on the new channels.
        guard state != nil, settleEpoch == epoch, consumerChannels.contains(channel) else { return }
        if case .ack(multiple: false) = action {
            acks[channel, default: AckCoalescer()].ack(tag)
            return
        }
        // Pending single acks go first: a multiple settlement must not cover them.
        flushAcks(channel)
        guard let state else { return }
        let status: Int32
        switch action {
        case .ack(let multiple):
            status = amqp_basic_ack(state, channel, tag, multiple ? 1 : 0)
            acks[channel]?.settledDirectly(tag, multiple: multiple)
        case .nack(let requeue, let multiple):
            status = amqp_basic_nack(state, channel, tag, multiple ? 1 : 0, requeue ? 1 : 0)
            acks[channel]?.settledDirectly(tag, multiple: multiple)
        case .reject(let requeue):
            status = amqp_basic_reject(state, channel, tag, requeue ? 1 : 0)
            acks[channel]?.settledDirectly(tag, multiple: false)
        }
        if status != AMQP_STATUS_OK.rawValue {
            connectionLost("settle failed: \(String(cString: amqp_error_string2(status)))")
        }
    }

    /// Sends the acks gathered from one batch of commands, coalesced.
    private func flushAcks(_ only: UInt16? = nil) {
        for channel in only.map({ [$0] }) ?? Array(acks.keys) {
            guard let state, acks[channel]?.hasPending == true else { continue }
            for frame in acks[channel]!.flush() {
                guard case .ack(let tag, let multiple) = frame else { continue }
                if amqp_basic_ack(state, channel, tag, multiple ? 1 : 0) != AMQP_STATUS_OK.rawValue {
                    connectionLost("ack failed")
                    return
                }
            }
        }
    }

    private func cancelConsumer(_ id: UInt64) {
        guard let consumer = consumers[id], !consumer.cancelling else { return }
        consumer.cancelling = true
        guard let state, let channel = consumer.channel, let tag = consumer.consumerTag else {
            consumers[id] = nil
            consumer.continuation.finish()
            return
        }
        var cancel = amqp_basic_cancel_t(consumer_tag: arena.bytes(tag), nowait: 0)
        let status = amqp_send_method(state, channel, AMQPMethod.basicCancel, &cancel)
        arena.reset()
        if status != AMQP_STATUS_OK.rawValue { connectionLost("cancel failed") }
    }

    // MARK: - Incoming frames

    /// Reads frames until none is waiting; true when it stopped at `limit` with more to read.
    private func readFrames(limit: Int) -> Bool {
        var frame = amqp_frame_t()
        var noWait = timeval(tv_sec: 0, tv_usec: 0)
        var count = 0
        while let state, count < limit {
            let status = amqp_simple_wait_frame_noblock(state, &frame, &noWait)
            if status == AMQPMethod.statusTimeout { break }
            guard status == AMQP_STATUS_OK.rawValue else {
                connectionLost(String(cString: amqp_error_string2(status)))
                return false
            }
            handle(frame)
            count += 1
        }
        if let state { amqp_maybe_release_buffers(state) }
        return count == limit
    }

    private func handle(_ frame: amqp_frame_t) {
        let channel = frame.channel
        switch frame.frame_type {
        case AMQPMethod.frameMethod:
            handleMethod(frame.payload.method, channel: channel)
        case AMQPMethod.frameHeader:
            let properties = frame.payload.properties
            let decoded = properties.decoded.assumingMemoryBound(to: amqp_basic_properties_t.self).pointee
            contents[channel]?.header(CDecoding.properties(decoded), bodySize: Int(properties.body_size))
            completeContent(channel)
        case AMQPMethod.frameBody:
            let fragment = frame.payload.body_fragment
            if fragment.len > 0, let base = fragment.bytes {
                contents[channel]?.append(UnsafeRawBufferPointer(start: base, count: fragment.len))
            }
            completeContent(channel)
        default:
            break
        }
    }

    private func handleMethod(_ method: amqp_method_t, channel: UInt16) {
        switch method.id {
        case AMQPMethod.basicDeliver:
            let deliver = method.decoded.assumingMemoryBound(to: amqp_basic_deliver_t.self).pointee
            contents[channel] = ContentAssembler(
                kind: .delivery(tag: deliver.delivery_tag, redelivered: deliver.redelivered != 0),
                exchange: CDecoding.string(deliver.exchange), routingKey: CDecoding.string(deliver.routing_key))
        case AMQPMethod.basicReturn:
            let returned = method.decoded.assumingMemoryBound(to: amqp_basic_return_t.self).pointee
            contents[channel] = ContentAssembler(
                kind: .returned(code: Int(returned.reply_code), text: CDecoding.string(returned.reply_text)),
                exchange: CDecoding.string(returned.exchange), routingKey: CDecoding.string(returned.routing_key))
        case AMQPMethod.basicAck:
            let ack = method.decoded.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee
            for (completion, result) in confirms.ack(tag: ack.delivery_tag, multiple: ack.multiple != 0) {
                completion(result)
            }
        case AMQPMethod.basicNack:
            let nack = method.decoded.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
            for (completion, result) in confirms.nack(tag: nack.delivery_tag, multiple: nack.multiple != 0) {
                completion(result)
            }
        case AMQPMethod.basicCancelOK:
            if let consumer = channelConsumers[channel] {
                finishConsumer(consumer, error: nil)
            }
        case AMQPMethod.basicCancel:
            // The broker cancelled the consumer, e.g. because its queue was deleted.
            if let consumer = channelConsumers[channel] {
                finishConsumer(consumer, error: BrokerError(.consumerCancelled, "broker cancelled the consumer of \(consumer.queue)"))
            }
        case AMQPMethod.channelClose:
            let close = method.decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
            channelClosedByBroker(channel, reason: "\(close.reply_code) \(CDecoding.string(close.reply_text))")
        case AMQPMethod.connectionClose:
            let close = method.decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
            if let state {
                var ok = amqp_connection_close_ok_t(dummy: 0)
                _ = amqp_send_method(state, 0, AMQPMethod.connectionCloseOK, &ok)
            }
            connectionLost("broker closed the connection: \(close.reply_code) \(CDecoding.string(close.reply_text))")
        case AMQPMethod.connectionBlocked:
            logger.warning("broker blocked publishing (resource alarm)")
        case AMQPMethod.connectionUnblocked:
            logger.info("broker unblocked publishing")
        case AMQPMethod.channelFlow:
            if let state {
                var ok = amqp_channel_flow_ok_t(active: 1)
                _ = amqp_send_method(state, channel, AMQPMethod.channelFlowOK, &ok)
            }
        default:
            break
        }
    }

    private func completeContent(_ channel: UInt16) {
        guard let content = contents[channel], content.isComplete else { return }
        contents[channel] = nil
        switch content.kind {
        case .delivery(let tag, let redelivered):
            // The broker may route a message to a consumer after its cancel was sent and
            // before the cancel-ok: nobody will read it, so it goes straight back.
            guard let consumer = channelConsumers[channel], !consumer.cancelling else {
                if let state, amqp_basic_reject(state, channel, tag, 1) != AMQP_STATUS_OK.rawValue {
                    connectionLost("reject failed")
                }
                return
            }
            acks[channel, default: AckCoalescer()].delivered(tag)
            let delivery = Delivery(
                body: content.body, properties: content.properties ?? MessageProperties(), exchange: content.exchange,
                routingKey: content.routingKey, redelivered: redelivered, deliveryTag: tag,
                settler: Settler(mailbox: mailbox, channel: channel, epoch: epoch))
            consumer.continuation.yield(delivery)
        case .returned(let code, let text):
            if let tag = content.properties?.headers[Header.publishTag]?.intValue {
                confirms.markReturned(tag: UInt64(tag), code: code, text: text)
            }
        }
    }

    private func channelClosedByBroker(_ channel: UInt16, reason: String) {
        guard let state else { return }
        var ok = amqp_channel_close_ok_t(dummy: 0)
        _ = amqp_send_method(state, channel, AMQPMethod.channelCloseOK, &ok)
        contents[channel] = nil
        acks[channel] = nil
        consumerChannels.remove(channel)
        if channel == Channel.publish {
            // Which publish caused it is unknown, so every unconfirmed one is reported.
            logger.warning("broker closed the publish channel", metadata: ["reason": "\(reason)"])
            for (completion, error) in confirms.failAll(.unconfirmed(reason: "channel closed: \(reason)")) {
                completion(.failure(error))
            }
            do {
                try openPublishChannel(state)
            } catch {
                connectionLost("cannot reopen the publish channel: \(error)")
            }
        } else if let consumer = channelConsumers[channel] {
            logger.warning("broker closed a consumer channel", metadata: ["queue": "\(consumer.queue)", "reason": "\(reason)"])
            finishConsumer(consumer, error: BrokerError(.refused, "consumer of \(consumer.queue) closed: \(reason)"))
        }
    }

    private func finishConsumer(_ consumer: ConsumerRegistration, error: BrokerError?) {
        consumers[consumer.id] = nil
        if let channel = consumer.channel { channelConsumers[channel] = nil }
        if let error { consumer.continuation.finish(throwing: error) } else { consumer.continuation.finish() }
    }

    // MARK: - Losing and closing

    private func connectionLost(_ reason: String) {
        guard let lost = state else { return }
        logger.warning("broker connection lost", metadata: ["reason": "\(reason)", "epoch": "\(epoch)"])
        state = nil
        connected.store(false, ordering: .releasing)
        amqp_destroy_connection(lost)
        for (completion, error) in confirms.failAll(.unconfirmed(reason: reason)) { completion(.failure(error)) }
        contents.removeAll()
        acks.removeAll()
        channelConsumers.removeAll()
        consumerChannels.removeAll()
        for consumer in consumers.values {
            consumer.channel = nil
            consumer.consumerTag = nil
            if consumer.cancelling {
                consumers[consumer.id] = nil
                consumer.continuation.finish()
            }
        }
        nextConnectAt = .now + backoff(attempt: 0)
        reconnectAttempt = 1
    }

    private func shutdown() {
        // Settlements that consumers sent before the close go out first, so that finished
        // work is not redelivered.
        var leftovers: [ConnectionCommand] = []
        for command in mailbox.drain() {
            if case .settle = command { execute(command) } else { leftovers.append(command) }
        }
        flushAcks()
        for (completion, error) in confirms.failAll(.shutdown) { completion(.failure(error)) }
        for consumer in consumers.values { consumer.continuation.finish() }
        consumers.removeAll()
        channelConsumers.removeAll()
        consumerChannels.removeAll()
        if let state {
            _ = amqp_connection_close(state, AMQP_REPLY_SUCCESS)
            amqp_destroy_connection(state)
            self.state = nil
        }
        connected.store(false, ordering: .releasing)
        for command in leftovers + mailbox.drain() {
            switch command {
            case .publish(let messages, let completion):
                for index in messages.indices { completion(index, .failure(.shutdown)) }
            case .control(let body): body(nil)
            case .close(let completion): closeCompletions.append(completion)
            case .startConsumer(let consumer): consumer.continuation.finish()
            case .settle, .cancelConsumer: break
            }
        }
        logger.debug("broker connection closed")
        for completion in closeCompletions { completion() }
    }

    enum Header {
        static let publishTag = "x-iap-publish-tag"
    }
}

extension timeval {
    init(_ duration: Duration) {
        let micros = duration.microseconds
        self.init(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
    }
}
