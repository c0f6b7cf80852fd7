import CRabbitMQ

/// Synchronous round trips (declarations, purges, queue depths) on a channel reserved
/// for them, so that they never meet confirms or deliveries. Valid only inside a
/// ``ConnectionCommand/control(_:)`` closure, on the owner thread.
public final class ControlChannel: @unchecked Sendable {
    static let number: UInt16 = 1

    let state: amqp_connection_state_t
    /// Set when a round trip failed at the connection level; the loop then reconnects.
    private(set) var connectionBroken: String?

    init(state: amqp_connection_state_t) {
        self.state = state
    }

    /// Arguments that shape a queue only when the broker creates it. RabbitMQ 3.10 still
    /// refuses a declaration that differs from the queue in them, which would lock every
    /// stage out of a queue created before (or with another value): such a queue is taken as
    /// it is, since its members are changed with `rabbitmq-queues grow`/`shrink`, not by this.
    public static let creationOnlyArguments: Set<String> = ["x-quorum-initial-group-size"]

    /// Declares exchanges, queues and bindings; idempotent for equal arguments.
    /// - Returns: the queues that exist with other ``creationOnlyArguments``, kept as they are.
    @discardableResult
    public func declare(_ topology: Topology) throws(BrokerError) -> [String] {
        let arena = CArena()
        for exchange in topology.exchanges {
            _ = amqp_exchange_declare(
                state, Self.number, arena.bytes(exchange.name), arena.bytes(exchange.type), 0, 1, 0, 0, amqp_empty_table
            )
            try check("declare exchange \(exchange.name)")
        }
        var kept: [String] = []
        for queue in topology.queues {
            if try !declare(queue) { kept.append(queue.name) }
        }
        for binding in topology.bindings {
            _ = amqp_queue_bind(
                state, Self.number, arena.bytes(binding.queue), arena.bytes(binding.exchange),
                arena.bytes(binding.routingKey), amqp_empty_table)
            try check("bind \(binding.queue) to \(binding.exchange)")
        }
        return kept
    }

    /// Declares one queue; false when it exists with other creation-only arguments: then
    /// every other argument is still checked (declared without them), unless the queue has
    /// one of them set otherwise, when only its existence is (a passive declare).
    private func declare(_ queue: QueueSpec) throws(BrokerError) -> Bool {
        let arena = CArena()
        func attempt(_ arguments: [String: AMQPValue], passive: Bool = false) throws(BrokerError) {
            _ = amqp_queue_declare(
                state, Self.number, arena.bytes(queue.name), passive ? 1 : 0, 1, 0, 0, arena.table(arguments))
            try check("declare queue \(queue.name)")
        }
        func refusedForCreationOnly(_ error: BrokerError) -> Bool {
            error.code == .refused && Self.creationOnlyArguments.contains { error.message.contains("'\($0)'") }
        }
        do throws(BrokerError) {
            try attempt(queue.arguments)
            return true
        } catch {
            guard refusedForCreationOnly(error) else { throw error }
        }
        do throws(BrokerError) {
            try attempt(queue.arguments.filter { !Self.creationOnlyArguments.contains($0.key) })
        } catch {
            guard refusedForCreationOnly(error) else { throw error }
            try attempt([:], passive: true)
        }
        return false
    }

    /// Messages ready and consumers of a queue; `refused` when it does not exist.
    public func queueStatus(_ name: String) throws(BrokerError) -> QueueStatus {
        let arena = CArena()
        let ok = amqp_queue_declare(state, Self.number, arena.bytes(name), 1, 0, 0, 0, amqp_empty_table)
        try check("inspect queue \(name)")
        guard let ok else { throw BrokerError(.refused, "inspect queue \(name): no answer") }
        return QueueStatus(messages: Int(ok.pointee.message_count), consumers: Int(ok.pointee.consumer_count))
    }

    /// Removes every ready message; returns how many.
    @discardableResult
    public func purge(_ name: String) throws(BrokerError) -> Int {
        let arena = CArena()
        let ok = amqp_queue_purge(state, Self.number, arena.bytes(name))
        try check("purge queue \(name)")
        return Int(ok?.pointee.message_count ?? 0)
    }

    public func deleteQueue(_ name: String) throws(BrokerError) {
        let arena = CArena()
        _ = amqp_queue_delete(state, Self.number, arena.bytes(name), 0, 0)
        try check("delete queue \(name)")
    }

    public func deleteExchange(_ name: String) throws(BrokerError) {
        let arena = CArena()
        _ = amqp_exchange_delete(state, Self.number, arena.bytes(name), 0)
        try check("delete exchange \(name)")
    }

    /// Turns the last RPC reply into an error. A channel exception closes the control
    /// channel, so it is acknowledged and opened again before throwing.
    func check(_ context: String) throws(BrokerError) {
        let reply = amqp_get_rpc_reply(state)
        do {
            try RPCReply.check(reply, state: state, channel: Self.number, context: context)
        } catch {
            switch error {
            case .channelClosed(let message):
                _ = amqp_channel_open(state, Self.number)
                if amqp_get_rpc_reply(state).reply_type != AMQP_RESPONSE_NORMAL {
                    connectionBroken = "cannot reopen the control channel"
                }
                throw BrokerError(.refused, message)
            case .connectionClosed(let message):
                connectionBroken = message
                throw BrokerError(.connection, message)
            }
        }
    }
}

/// A queue's depth and consumer count, from a passive declare.
public struct QueueStatus: Hashable, Sendable {
    public let messages: Int
    public let consumers: Int
}

/// Reads `amqp_rpc_reply_t`, acknowledging server-side closes as the protocol requires.
enum RPCReply {
    enum Failure: Error {
        case channelClosed(String)
        case connectionClosed(String)
    }

    static func check(
        _ reply: amqp_rpc_reply_t, state: amqp_connection_state_t, channel: UInt16, context: String
    ) throws(Failure) {
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            return
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            throw .connectionClosed("\(context): \(String(cString: amqp_error_string2(reply.library_error)))")
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            switch reply.reply.id {
            case AMQPMethod.channelClose:
                let close = reply.reply.decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                var ok = amqp_channel_close_ok_t(dummy: 0)
                _ = amqp_send_method(state, channel, AMQPMethod.channelCloseOK, &ok)
                throw .channelClosed("\(context): \(close.reply_code) \(CDecoding.string(close.reply_text))")
            case AMQPMethod.connectionClose:
                let close = reply.reply.decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                var ok = amqp_connection_close_ok_t(dummy: 0)
                _ = amqp_send_method(state, 0, AMQPMethod.connectionCloseOK, &ok)
                throw .connectionClosed(
                    "\(context): broker closed the connection: \(close.reply_code) \(CDecoding.string(close.reply_text))"
                )
            default:
                throw .connectionClosed("\(context): unexpected method \(reply.reply.id)")
            }
        default:
            throw .connectionClosed("\(context): no reply")
        }
    }
}
