import Database
import Glibc
import SettlementWriter

/// An exclusive `flock` on a file beside the database, for what processes sharing one
/// database must do one at a time.
///
/// Two are used: `<db>.migrate-lock` while migrating (processes starting together would
/// otherwise race to create the same tables), and `<db>.write-lock` around every write
/// transaction of every process (intake, fulfiller, notifier). SQLite's own write lock has
/// no queue: a process that finds it taken sleeps 1, 2, 5, 10, 15, 20, 25... ms and tries
/// again, so under load the lock sits free while the waiters sleep. The kernel queues
/// `flock` waiters and wakes the next one as the holder lets go. Writers that do not take
/// it (the `sqlite3` shell, say) still meet SQLite's lock and its busy timeout.
final class FileLock: Sendable {
    private let fd: Int32

    /// Opens (creating) `path`; without it (a read-only directory) `hold` runs unlocked:
    /// nothing can write there to race with.
    init(path: String) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Runs `body` holding the lock. Locks of one open file do not exclude each other, so
    /// one `FileLock` must not be held twice at once (a process's writes are already one at
    /// a time: one writer connection).
    func hold<T>(_ body: () throws -> T) rethrows -> T {
        guard fd >= 0 else { return try body() }
        while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Takes the lock without waiting and keeps it until this `FileLock` is released (or its
    /// process dies); false when another holds it, or the file could not be opened.
    func take() -> Bool {
        fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0
    }
}
