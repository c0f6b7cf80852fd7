import Foundation
import PipelineCore

/// How long PostgreSQL work may take, and how soon a server gone silent (cut off by the
/// network: packets dropped, nothing refused) is noticed. docs/operations.md ("Silent
/// partitions") adds them up.
///
/// ```swift
/// let stages = PostgresTimeouts()                                  // 10 s, 20 s, 1 h
/// let audit = PostgresPipelineDatabase(location: location, timeouts: stages, longWork: true, logger: logger)
/// ```
public struct PostgresTimeouts: Sendable, Hashable {
    /// Both ends of every connection give a silent peer up after this (`IAP_DATABASE_DEAD_PEER_SECONDS`):
    /// this process's sockets (``DeadPeer``), and the server's side of each session
    /// (`tcp_user_timeout`, `tcp_keepalives_*`), so that a backend whose client vanished ends
    /// its transaction and lets its locks go. A server that computes for an hour still
    /// answers the probes: this bounds silence, not work.
    public var deadPeer: DeadPeer
    /// A stage's transaction, once it has its connection (`IAP_DATABASE_TIMEOUT_SECONDS`):
    /// stages' work is short, and a stage that waits longer holds its message, its HTTP
    /// request or its batch up for nothing.
    public var work: Duration
    /// Long work's transaction (`IAP_DATABASE_LONG_TIMEOUT_SECONDS`): audits, migrations, the
    /// console's reports and the commands that read the whole database.
    public var longWork: Duration

    public init(
        deadPeer: DeadPeer = DeadPeer(timeout: .seconds(10)), work: Duration = .seconds(20),
        longWork: Duration = .seconds(3600)
    ) {
        self.deadPeer = deadPeer
        self.work = work
        self.longWork = longWork
    }

    /// The settings the server applies to every session of this process: its side of the
    /// dead-peer bound, and `bounds`'s (the kind of work the process does).
    func startupParameters(_ bounds: WorkBounds) -> [(String, String)] {
        [
            ("tcp_user_timeout", "\(deadPeer.userTimeoutMilliseconds)"),
            ("tcp_keepalives_idle", "\(deadPeer.keepaliveIdle)"),
            ("tcp_keepalives_interval", "\(deadPeer.keepaliveInterval)"),
            ("tcp_keepalives_count", "\(deadPeer.keepaliveCount)"),
        ] + bounds.settings
    }
}

/// The bounds of one kind of work, and what the server is told of them: the server ends a
/// lock wait or an abandoned transaction itself, with a clear error, before this process gives
/// the connection up.
///
/// No `statement_timeout`: it would also cancel a commit's wait for the synchronous standby,
/// which PostgreSQL then reports as a success (committed locally, "might not have been
/// replicated"): a commit acknowledged that a promoted standby may lack. The work's own bound
/// closes the connection instead, and the commit stays unacknowledged.
struct WorkBounds: Sendable, Hashable {
    /// A transaction's whole time once it has its connection: past it this process closes
    /// the connection (the server may be alive but stuck: a commit waiting for a standby).
    var work: Duration

    /// `lock_timeout`: half the work's time, so that a lock wait ends with the server's error.
    var lockWait: Duration { work / 2 }
    /// `idle_in_transaction_session_timeout`: a transaction whose client went quiet ends, and
    /// its locks go, within the work's time.
    var idleInTransaction: Duration { work }

    /// The server's settings, in milliseconds.
    var settings: [(String, String)] {
        [
            ("lock_timeout", "\(lockWait.milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(idleInTransaction.milliseconds)"),
        ]
    }

    /// One statement that gives the transaction it runs in these bounds instead of the
    /// session's (`SET LOCAL`, both at once).
    var setLocal: String {
        let calls = settings.map { "set_config('\($0.0)', '\($0.1)', true)" }
        return "SELECT \(calls.joined(separator: ", "))"
    }
}
