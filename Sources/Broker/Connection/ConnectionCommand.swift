/// A message to a connection's owner thread.
enum ConnectionCommand: Sendable {
    /// Called once per message of a publish, with the message's index in its batch.
    typealias Completion = @Sendable (Int, Result<Void, PublishError>) -> Void

    /// With an ``AckOnConfirm``, that delivery is acked on the owner thread once every
    /// message is confirmed, before the completions run.
    case publish([OutgoingMessage], ackOnConfirm: AckOnConfirm?, Completion)
    case settle(channel: UInt16, epoch: UInt64, tag: UInt64, action: Settler.Action)
    case startConsumer(ConsumerRegistration)
    case cancelConsumer(id: UInt64)
    /// Runs on the owner thread with the control channel; nil when not connected.
    case control(@Sendable (ControlChannel?) -> Void)
    case close(@Sendable () -> Void)
}

/// A publish awaiting its confirm.
struct PendingConfirm {
    let completion: ConnectionCommand.Completion
    let index: Int

    func callAsFunction(_ result: Result<Void, PublishError>) { completion(index, result) }
}

/// A delivery that a publish settles: acked by the owner thread as the last confirm of the
/// publish arrives, so that the consumer's task sends nothing more and the thread is not
/// woken a second time for the ack.
struct AckOnConfirm: Sendable {
    let channel: UInt16
    let epoch: UInt64
    let tag: UInt64
}

/// Counts the confirms of one publish; touched by the owner thread only.
final class ConfirmCountdown: @unchecked Sendable {
    private var remaining: Int
    private var failed = false

    init(_ count: Int) { remaining = count }

    /// True once the last message is confirmed and none has failed.
    func record(_ result: Result<Void, PublishError>) -> Bool {
        if case .failure = result { failed = true }
        remaining -= 1
        return remaining == 0 && !failed
    }
}
