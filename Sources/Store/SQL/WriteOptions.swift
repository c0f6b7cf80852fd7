import Foundation

/// How a write transaction's commit reaches the disk.
public enum CommitSync: Sendable {
    /// Synced before the commit returns (`synchronous = FULL`): whatever a caller is told
    /// after it survives a power loss. Receipts, credits, claims.
    case durable
    /// Written to the WAL but not synced (`synchronous = NORMAL`): a power loss can take it
    /// back, together with everything committed after it and nothing before. For records
    /// whose loss only repeats work: the relay's published marks, the notifier's delivered
    /// marks. The next durable commit of any process syncs it too, since the WAL is one file.
    case relaxed
    /// Synced before the commit returns, like `.durable`, but after the write lock is let
    /// go: other writers' transactions run during the sync, and the syncs of several
    /// writers overlap. Others may read the rows before they are on disk, so this is only
    /// for writes that nobody outside acts on before a sync of their own: the intake's
    /// receipts (each answer, publish or duplicate's answer follows a sync that holds the
    /// rows it saw, since the WAL is one file). A credit is not: the notifier would announce
    /// it.
    case durableAfterUnlock
}

/// Which writes go first when several wait for the database in one process.
public enum WritePriority: Sendable {
    /// Background work: crediting, marks, claims, archives.
    case normal
    /// Someone is waiting on the answer now: the intake's group commit.
    case urgent
}
