/// A message to a connection's owner thread.
enum ConnectionCommand: Sendable {
    /// Called once per message of a publish, with the message's index in its batch.
    typealias Completion = @Sendable (Int, Result<Void, PublishError>) -> Void

    case publish([OutgoingMessage], Completion)
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
