import Database
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the WAL's pages back into the database file outside the processes' write lock.
///
/// SQLite's own checkpoint runs inside the commit that takes the WAL past 1,000 pages, so
/// inside `<db>.write-lock` (``FileLock``): every process's writers waited for its copying
/// and its two syncs, and the intake's p99 at 1,000 receipts/s swung from 23 to 107 ms with
/// them (21-31 ms without). Here a commit only reports the WAL's size (SQLite's WAL hook,
/// which replaces its automatic checkpoint on that connection). Past `threshold` pages a
/// connection of the checkpointer's own runs a `PASSIVE` checkpoint on its own queue: it
/// takes no write lock, so writers in every process go on meanwhile. Should the WAL still
/// reach `backstop` pages (the checkpointer starved, or failing), the commit checkpoints
/// itself, as SQLite would have.
final class Checkpointer: Sendable {
    /// SQLite's own automatic checkpoint size, in pages.
    static let defaultThreshold = 1000

    private struct State {
        var running = false
        var again = false
        /// The WAL size at which to ask again: past `threshold`, or past what a checkpoint
        /// left behind (pages readers still needed) by `threshold` more.
        var nextAt: Int
        /// The WAL's size at the last commit.
        var pages = 0
    }

    private let path: String
    private let threshold: Int
    private let backstop: Int
    private let state: Mutex<State>
    /// The checkpointer's own connection, opened at its first checkpoint; used on `queue` only.
    private let connection = Mutex<DatabaseQueue?>(nil)
    /// Where checkpoints run, one at a time (tests hold it back with `suspend()`).
    let queue = DispatchQueue(label: "SQLiteDatabase.checkpointer", qos: .utility)
    private let finished = Mutex(0)

    init(path: String, threshold: Int = Checkpointer.defaultThreshold) {
        self.path = path
        self.threshold = threshold
        self.backstop = threshold * 10
        self.state = Mutex(State(nextAt: threshold))
    }

    /// Checkpoints run so far.
    var checkpointsRun: Int { finished.withLock { $0 } }

    /// No checkpoint running or asked for.
    var isIdle: Bool { state.withLock { !$0.running } }

    /// Has `db` report its commits here instead of checkpointing in them. Called for every
    /// connection of the pool; only the writer commits.
    func watch(_ db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The pool's configuration holds this checkpointer for as long as its connections live.
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue()
                if checkpointer.committed(walPages: Int(pages)) {
                    // The backstop: a PASSIVE checkpoint here, as SQLite's automatic one does.
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, context)
    }

    /// Notes a commit that left `walPages` in the WAL; true when the commit should
    /// checkpoint itself.
    private func committed(walPages: Int) -> Bool {
        if walPages >= backstop { return true }
        let start = state.withLock { state -> Bool in
            // A smaller WAL than the last mark means it was started over: ask at the threshold.
            state.pages = walPages
            if walPages + threshold < state.nextAt { state.nextAt = threshold }
            guard walPages >= state.nextAt else { return false }
            guard !state.running else {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { self.run() } }
        return false
    }

    /// Checkpoints until no commit asked again meanwhile.
    private func run() {
        while true {
            let outcome = checkpoint()
            let again = state.withLock { state -> Bool in
                switch outcome {
                case .success(let (wal, copied)):
                    state.nextAt = copied < wal ? wal + threshold : threshold
                case .failure:
                    // Tried again once the WAL has grown by as much; the backstop bounds it.
                    state.nextAt = state.pages + threshold
                }
                if state.again {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            }
            finished.withLock { $0 += 1 }
            guard again else { return }
        }
    }

    private func checkpoint() -> Result<(Int, Int), any Error> {
        Result {
            try connection.withLock { connection in
                if connection == nil {
                    var configuration = Configuration()
                    configuration.label = "SQLiteDatabase.checkpointer"
                    connection = try DatabaseQueue(path: path, configuration: configuration)
                }
                return try connection!.writeWithoutTransaction { db in
                    do {
                        let (wal, copied) = try db.checkpoint(.passive)
                        return (wal, copied)
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                        // Another process's checkpoint is running: it does the same work.
                        return (0, 0)
                    }
                }
            }
        }
    }
}
