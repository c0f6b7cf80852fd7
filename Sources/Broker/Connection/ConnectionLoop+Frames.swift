import CRabbitMQ
import Foundation
import Glibc
import Logging
import PipelineCore
import Synchronization

// Reading what the broker sends: deliveries, confirms, returns, cancels and closes.
extension ConnectionLoop {
    // MARK: - Incoming frames

    /// Reads frames until none is waiting; true when it stopped at `limit` with more to read.
    func readFrames(limit: Int) -> Bool {
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

    func handle(_ frame: amqp_frame_t) {
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

    func handleMethod(_ method: amqp_method_t, channel: UInt16) {
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
            confirmsProgressed()
        case AMQPMethod.basicNack:
            let nack = method.decoded.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
            // A nack is no progress: the wait for an ack goes on (see checkConfirmsProgress).
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
                finishConsumer(
                    consumer,
                    error: BrokerError(.consumerCancelled, "broker cancelled the consumer of \(consumer.queue)"))
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
            let blocking = method.decoded.assumingMemoryBound(to: amqp_connection_blocked_t.self).pointee
            publishingBlocked(reason: CDecoding.string(blocking.reason))
        case AMQPMethod.connectionUnblocked:
            publishingUnblocked()
        case AMQPMethod.channelFlow:
            if let state {
                var ok = amqp_channel_flow_ok_t(active: 1)
                _ = amqp_send_method(state, channel, AMQPMethod.channelFlowOK, &ok)
            }
        default:
            break
        }
    }

    func completeContent(_ channel: UInt16) {
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
            consumer.sink.yield(delivery)
        case .returned(let code, let text):
            if let tag = content.properties?.headers[Header.publishTag]?.intValue {
                confirms.markReturned(tag: UInt64(tag), code: code, text: text)
            }
        }
    }

    func channelClosedByBroker(_ channel: UInt16, reason: String) {
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
            confirmsStalledSince = nil
            do {
                try openPublishChannel(state)
            } catch {
                connectionLost("cannot reopen the publish channel: \(error)")
            }
        } else if let consumer = channelConsumers[channel] {
            logger.warning(
                "broker closed a consumer channel", metadata: ["queue": "\(consumer.queue)", "reason": "\(reason)"])
            finishConsumer(consumer, error: BrokerError(.refused, "consumer of \(consumer.queue) closed: \(reason)"))
        }
    }

    func finishConsumer(_ consumer: ConsumerRegistration, error: BrokerError?) {
        consumers[consumer.id] = nil
        if let channel = consumer.channel { channelConsumers[channel] = nil }
        consumer.sink.finish(throwing: error)
    }

    /// The broker stopped reading this connection's publishes (a resource alarm: its disk or
    /// memory): nothing is lost, their confirms wait until it clears, and the connection is
    /// not given up meanwhile (``checkConfirmsProgress()``). Said once, as an error, for the
    /// operator must free the broker's disk or memory.
    func publishingBlocked(reason: String) {
        guard !blocked else { return }
        blocked = true
        blockedSince = .now
        logger.error(
            "broker blocks publishing (resource alarm); publishes wait until it clears",
            metadata: [
                "amqp.node": "\(configuration.nodes[rotation.next])", "reason": "\(reason)",
                "unconfirmed": "\(confirms.pending)",
            ])
    }

    /// The alarm cleared: the broker reads and confirms what waited.
    func publishingUnblocked() {
        guard blocked else { return }
        blocked = false
        let waited = blockedSince.map { ContinuousClock.now - $0 } ?? .zero
        blockedSince = nil
        logger.notice(
            "broker unblocked publishing",
            metadata: [
                "amqp.node": "\(configuration.nodes[rotation.next])", "blocked_ms": "\(waited.milliseconds)",
                "unconfirmed": "\(confirms.pending)",
            ])
        confirmsProgressed()
    }

    /// An ack arrived: the wait for the others starts again.
    func confirmsProgressed() {
        confirmsStalledSince = confirms.pending > 0 ? .now : nil
    }

    /// Gives the connection up when publishes have gone unacked (unanswered or nacked) for
    /// the RPC timeout. RabbitMQ 3.10 can nack, or not answer, every publish of a channel
    /// for good: one that published to a quorum queue just as its leader's node died keeps
    /// addressing the dead leader (seen here with a SIGKILLed node: every publish nacked
    /// until the channel went). The publishes fail as unconfirmed and are retried on a new
    /// connection, to the next node. A queue that refuses publishes for as long (its length
    /// limit) costs a reconnect, which is harmless.
    func checkConfirmsProgress() {
        guard let since = confirmsStalledSince, state != nil, !blocked,
            ContinuousClock.now - since > configuration.rpcTimeout
        else { return }
        connectionLost("no publish acked for \(configuration.rpcTimeout) (\(confirms.pending) awaited)")
    }
}
