import CRabbitMQ
import Foundation

// Settling deliveries: acks gathered and coalesced, acks sent with a publish's confirm.
extension ConnectionLoop {
    /// Wraps a publish's completion so that the delivery is acked here, with the last confirm.
    func ackWhenConfirmed(
        _ ack: AckOnConfirm, count: Int, _ completion: @escaping ConnectionCommand.Completion
    ) -> ConnectionCommand.Completion {
        let countdown = ConfirmCountdown(count)
        return { [self] index, result in
            if countdown.record(result) {
                settle(channel: ack.channel, epoch: ack.epoch, tag: ack.tag, action: .ack(multiple: false))
            }
            completion(index, result)
        }
    }

    func settle(channel: UInt16, epoch settleEpoch: UInt64, tag: UInt64, action: Settler.Action) {
        // After a reconnect the broker has requeued the old deliveries; their tags mean
        // nothing on the new channels.
        guard state != nil, settleEpoch == epoch, consumerChannels.contains(channel) else { return }
        if case .ack(multiple: false) = action {
            acks[channel, default: AckCoalescer()].ack(tag)
            acksWaiting += 1
            if acksDueAt == nil { acksDueAt = .now + configuration.ackLinger }
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

    /// Sends the gathered acks once the linger is over or enough have gathered: below
    /// saturation a broker round trip (a Raft command on a quorum queue) then settles
    /// several deliveries, and the ack waits for nobody.
    func flushAcksIfDue() {
        guard let due = acksDueAt else { return }
        guard acksWaiting >= Self.acksAtOnce || ContinuousClock.now >= due else { return }
        flushAcks()
    }

    /// Sends the gathered acks, coalesced; those of one channel, or all.
    func flushAcks(_ only: UInt16? = nil) {
        if only == nil {
            acksDueAt = nil
            acksWaiting = 0
        }
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
}
