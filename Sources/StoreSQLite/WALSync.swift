import Dispatch
import Glibc
import Store
import Synchronization

/// Syncs the WAL file outside the write lock, for commits made `.deferred`.
///
/// A `synchronous = FULL` commit syncs the WAL while it holds the write lock, and every
/// other process's writer waits the sync out: on this machine the intake's syncs were a
/// third of the lock's time at saturation (BENCHMARKS.md, issue 29, tenth session). Such a
/// commit is written unsynced instead, and made durable here once the lock is free:
/// `fdatasync` on the WAL makes every frame written to it so far durable, whoever wrote
/// them. A checkpoint cannot take frames away first: it syncs the WAL before copying it
/// into the database and the database before the WAL is reused.
///
/// Callers that ask while a sync runs wait for the next one (their frames may have come
/// after it started); all of them share it.
final class WALSync: Sendable {
    private typealias Waiter = CheckedContinuation<Void, any Error>

    private struct State {
        var running = false
        var waiting: [Waiter] = []
    }

    private let path: String
    private let state = Mutex(State())
    /// `fdatasync` blocks its thread for a millisecond or more: not one of the few threads
    /// Swift's tasks share.
    let queue = DispatchQueue(label: "iap.sqlite.wal-sync")
    /// Syncs done, for tests.
    let completed = Atomic<Int>(0)

    /// - Parameter databasePath: the database file; its WAL is beside it, `<path>-wal`.
    init(databasePath: String) {
        path = databasePath + "-wal"
    }

    /// Returns once everything committed to the WAL before the call is on disk.
    func sync() async throws {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let start = state.withLock { state in
                state.waiting.append(waiter)
                if state.running { return false }
                state.running = true
                return true
            }
            if start { queue.async { self.run() } }
        }
    }

    private func run() {
        while true {
            let waiters = state.withLock { state in
                let waiters = state.waiting
                state.waiting = []
                if waiters.isEmpty { state.running = false }
                return waiters
            }
            guard !waiters.isEmpty else { return }
            let outcome = Result { try syncFile() }
            completed.add(1, ordering: .relaxed)
            for waiter in waiters { waiter.resume(with: outcome) }
        }
    }

    private func syncFile() throws {
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
