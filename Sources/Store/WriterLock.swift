import Glibc

/// How a write transaction's commit reaches the disk.
enum CommitSync: Sendable {
    /// Synced before the commit returns (`synchronous = FULL`): whatever a caller is told
    /// after it survives a power loss. Receipts, credits, claims.
    case durable
    /// Written to the WAL but not synced (`synchronous = NORMAL`): a power loss can take it
    /// back, together with everything committed after it and nothing before. For records
    /// whose loss only repeats work: the relay's published marks, the notifier's delivered
    /// marks. The next durable commit of any process syncs it too, since the WAL is one file.
    case relaxed
}

/// An exclusive `flock` on a file beside the database, taken around every write
/// transaction by every process that writes it (intake, fulfiller, notifier).
///
/// SQLite's own write lock has no queue: a process that finds it taken sleeps 1, 2, 5, 10,
/// 15, 20, 25... ms and tries again, so under load the lock sits free while the waiters
/// sleep, and commits wait for milliseconds they do not need. The kernel queues `flock`
/// waiters and wakes the next one as the holder lets go. Writers that do not take it (the
/// `sqlite3` shell, say) still meet SQLite's lock and its busy timeout.
final class WriterLock: Sendable {
    private let fd: Int32

    /// Opens (creating) `path`; without it (a read-only directory) writes go unlocked here.
    init(path: String) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Runs `body` holding the lock. One process's writes are already one at a time (one
    /// writer connection), so the lock is never taken twice by the same process.
    func hold<T>(_ body: () throws -> T) rethrows -> T {
        guard fd >= 0 else { return try body() }
        while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
