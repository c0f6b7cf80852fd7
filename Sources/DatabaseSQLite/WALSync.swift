import Database
import Dispatch
import Glibc
import SettlementWriter
import Synchronization

/// Syncs the WAL file, for commits made `.durableAfterUnlock`, once the processes' write
/// lock is let go.
///
/// A `synchronous = FULL` commit syncs the WAL while it holds the write lock, and every
/// other process's writer waits the sync out: on this machine the intake's syncs were most
/// of its third of the lock's time at saturation (BENCHMARKS.md, issue 29, tenth session).
/// Such a commit is written unsynced instead, and made durable here, on the writer's own
/// thread (no hop to another), before the transaction returns: `fdatasync` on the WAL
/// makes every frame written to it so far durable, whoever wrote them. A checkpoint cannot
/// take frames away first: it syncs the WAL before copying it into the database, and the
/// database before the WAL is reused.
final class WALSync: Sendable {
    private let path: String
    /// Runs before each sync, for tests that hold or count them.
    let beforeSync = Mutex<(@Sendable () -> Void)?>(nil)
    /// Whether a ``syncSoon()`` is waiting to run.
    private let scheduled = Mutex(false)
    /// How soon a relaxed commit is synced after it: PostgreSQL's WAL writer flushes an
    /// asynchronous commit within three `wal_writer_delay`s (600 ms by default).
    static let relaxedDelay = 0.5

    /// - Parameter databasePath: the database file; its WAL is beside it, `<path>-wal`.
    init(databasePath: String) {
        path = databasePath + "-wal"
    }

    /// Syncs the WAL within ``relaxedDelay``, on a thread of its own, unless a sync is already
    /// waiting: a relaxed commit (a mark, a claim) is then lost to a power cut only in the
    /// moments after it, not until the next durable commit, which an idle pipeline may
    /// not make for hours. Found by `iap-lab chaos --power`: with the load over, every cut
    /// took every delivered mark back since the last receipt, and each webhook went out again.
    func syncSoon() {
        let first = scheduled.withLock { waiting in
            defer { waiting = true }
            return !waiting
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.relaxedDelay) {
            self.scheduled.withLock { $0 = false }
            try? self.sync()
        }
    }

    /// Returns once everything written to the WAL before the call is on disk.
    func sync() throws {
        beforeSync.withLock { $0 }?()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // No WAL: the last connection checkpointed it into the database, synced, and
            // removed it.
            if errno == ENOENT { return }
            throw SQLError.unavailable("cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        while fdatasync(fd) != 0 {
            guard errno == EINTR else {
                throw SQLError.unavailable("cannot sync \(path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
