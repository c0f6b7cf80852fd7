import Foundation

/// How a write transaction's commit reaches the disk.
public enum CommitSync: Sendable {
    /// Synced before the commit returns (`synchronous = FULL`): whatever a caller is told
    /// after it survives a power loss. Receipts, credits, claims.
    case durable
    /// Written to the WAL but not synced (`synchronous = NORMAL`): a power loss can take it
    /// back, together with everything committed after it and nothing before. For records
    /// whose loss only repeats work: the relay's published marks, the notifier's delivered
    /// marks. The next durable commit of any process syncs it too, since the WAL is one file,
    /// and SQLite syncs it by itself within half a second, as PostgreSQL's WAL writer does
    /// an asynchronous commit: an idle pipeline's marks do not wait hours for a durable commit.
    case relaxed
    /// Durable before the commit returns, like `.durable`, but on SQLite synced after the
    /// processes' write lock is let go, so that their other writers do not wait the sync
    /// out (PostgreSQL's commit holds no other writer up while it flushes: there it is
    /// `.durable`). Others may read the rows before they are on disk, so only for rows that
    /// nobody tells the outside world of before a sync of their own: the intake's receipts.
    /// A duplicate's answer follows its own batch's sync, which holds every frame written
    /// before it, since the WAL is one file. Not for credits: the notifier would announce
    /// one a power cut can take back.
    case durableAfterUnlock
}

/// Which writes go first when several wait for the database in one process.
public enum WritePriority: Sendable {
    /// Background work: crediting, marks, claims, archives.
    case normal
    /// Someone is waiting on the answer now: the intake's group commit.
    case urgent
}
