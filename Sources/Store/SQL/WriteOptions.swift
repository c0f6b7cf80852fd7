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
    /// Durable once ``SQLDatabase/syncCommitted()`` returns, which its writer calls before
    /// telling anyone of it: the intake's receipts, before the answers. On SQLite it is
    /// written to the WAL unsynced and the sync runs after the write lock is let go, so that
    /// the other processes' writers do not wait it out; PostgreSQL's commit is durable
    /// already and holds no other writer up while it flushes. Others may read it before it
    /// is on disk, so only for rows that nobody tells the outside world of before a sync of
    /// their own: a duplicate's answer and the relay's publish follow the intake's sync,
    /// which holds every frame written before it, since the WAL is one file. Not for credits:
    /// the notifier would announce one a power cut can take back.
    case deferred
}

/// Which writes go first when several wait for the database in one process.
public enum WritePriority: Sendable {
    /// Background work: crediting, marks, claims, archives.
    case normal
    /// Someone is waiting on the answer now: the intake's group commit.
    case urgent
}
