/// What a committed transaction may tell processes waiting for it, so that they need not
/// poll: PostgreSQL's `NOTIFY`, heard by the sessions that `LISTEN`; on SQLite, a datagram
/// to a socket beside the file, which one process on the machine listens to (in one
/// process, a ``Doorbell`` of the pipeline's own rings as well).
public enum CommitChannel: String, Sendable, CaseIterable {
    /// Webhooks were written to the outbox: the notifiers have work.
    case outbox = "iap_outbox"
}

/// A database that tells listeners when a transaction that signalled a channel
/// (``SQLSession/signal(_:)``) has committed.
public protocol CommitSignals: Sendable {
    /// Calls `heard` for each commit that signalled `channel`, and once after each time it
    /// (re)connects, since signals sent meanwhile were missed. Runs until the task is
    /// cancelled; a lost connection is made again with backoff, logged, never thrown.
    func listen(to channel: CommitChannel, heard: @escaping @Sendable () -> Void) async
}
