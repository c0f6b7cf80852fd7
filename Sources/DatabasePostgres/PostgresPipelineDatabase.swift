import Database
import Foundation
import Logging
import PostgresNIO
import SettlementWriter
import Synchronization

/// A PostgreSQL database (`IAP_DATABASE_URL`): a pool of connections (postgres-nio's
/// `PostgresClient`) to the server that accepts writes, and the schema.
///
/// The stores run on it the way they run on SQLite: every transaction leases a connection,
/// and each statement is a round trip the task awaits, holding no thread. A transaction that
/// lost a race with another process's (a deadlock, a serialization failure) is run again, a
/// few times, from the start; a connection the server ended is dropped and the error is
/// ``SQLError/unreachable(_:)``, which the stages treat as transient.
///
/// With several servers (a primary and its standbys), ``PostgresPrimary`` says which one the
/// pool leases from, and looks for the new primary when work fails the way a failover makes
/// it fail; the failed work stays a transient error.
///
/// The pools run from `init` until ``close()``: the database is opened by long-running
/// stages and one-shot commands alike, and each closes it when done.
public final class PostgresPipelineDatabase: SQLDatabase {
    public let location: PostgresLocation
    let logger: Logger
    let primary: PostgresPrimary
    public let timeouts: PostgresTimeouts
    /// Whether a server takes connections, for leases that wait (``leased(_:)``).
    let reach: ServerReach

    /// The bounds of this object's transactions (``PostgresTimeouts/work`` or
    /// ``PostgresTimeouts/longWork``). Past their time the connection is closed: a server that
    /// answers nothing is given up, as a transient error, and suspected.
    let bounds: WorkBounds
    /// Whether this object made the pools (``forLongWork()`` makes one that shares them).
    private let ownsPools: Bool

    /// How long this object's transactions may take once they have their connection.
    public var workTimeout: Duration { bounds.work }

    /// Nothing is connected until the first transaction.
    /// - Parameters:
    ///   - connections: how many transactions this process runs at once, at most.
    ///   - timeouts: the dead-peer bound and the work bounds (``PostgresTimeouts``).
    ///   - longWork: whether this process does long work (a command: an audit, a migration),
    ///     whose sessions and transactions get ``PostgresTimeouts/longWork``; else a stage's
    ///     ``PostgresTimeouts/work``.
    public init(
        location: PostgresLocation, connections: Int = 8, timeouts: PostgresTimeouts = PostgresTimeouts(),
        longWork: Bool = false, logger: Logger
    ) {
        self.location = location
        self.logger = logger
        self.timeouts = timeouts
        bounds = WorkBounds(work: longWork ? timeouts.longWork : timeouts.work)
        ownsPools = true
        primary = PostgresPrimary(
            location: location, connections: connections, timeouts: timeouts, session: bounds, logger: logger)
        reach = ServerReach(location: location, logger: logger)
    }

    /// A stage's database whose transactions end after `workTimeout` (the tests' short bounds).
    public convenience init(location: PostgresLocation, connections: Int = 8, workTimeout: Duration, logger: Logger) {
        var timeouts = PostgresTimeouts()
        timeouts.work = workTimeout
        self.init(location: location, connections: connections, timeouts: timeouts, logger: logger)
    }

    /// The same pools, with long work's bounds (set on each transaction, over the sessions').
    private init(sharing owner: PostgresPipelineDatabase, bounds: WorkBounds) {
        location = owner.location
        logger = owner.logger
        timeouts = owner.timeouts
        primary = owner.primary
        reach = owner.reach
        self.bounds = bounds
        ownsPools = false
    }

    /// This database for long work (the console's reports in a stage's process): the same
    /// connections, each transaction bounded by ``PostgresTimeouts/longWork`` instead.
    public func forLongWork() -> any SQLDatabase {
        let long = WorkBounds(work: timeouts.longWork)
        return long == bounds ? self : PostgresPipelineDatabase(sharing: self, bounds: long)
    }

    /// Closes every connection, and waits until they are closed (the pools' owner only).
    public func close() async {
        guard ownsPools else { return }
        await primary.close()
    }

    /// What a transaction may do, and how its commit reaches the disk.
    enum Kind: Sendable {
        case write(CommitSync)
        case read

        var begin: [String] {
            switch self {
            case .read: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
            // A commit waits for its WAL flush holding no other writer up: it is durable.
            case .write(.durable), .write(.durableAfterUnlock): ["BEGIN"]
            // Its loss only repeats work (a published mark): the commit does not wait for
            // the WAL flush. The next durable commit flushes it too.
            case .write(.relaxed): ["BEGIN", "SET LOCAL synchronous_commit = off"]
            }
        }
    }

    /// PostgreSQL orders waiting transactions itself: `priority` changes nothing here.
    @discardableResult
    public func transaction<T: Sendable>(
        priority: WritePriority, sync: CommitSync, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        try await run(.write(sync), body)
    }

    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) async throws -> T) async throws -> T
    {
        try await run(.read, body)
    }

    static let attempts = 5

    private func run<T: Sendable>(_ kind: Kind, _ body: @escaping @Sendable (any SQLSession) async throws -> T)
        async throws -> T
    {
        var attempt = 1
        while true {
            do {
                return try await once(kind, body)
            } catch SQLError.retry(let message) where attempt < Self.attempts {
                logger.debug(
                    "transaction lost a race; running it again",
                    metadata: ["attempt": "\(attempt)", "error": "\(message)"])
                attempt += 1
                // Apart, so that two transactions that collided do not collide again.
                try await Task.sleep(for: .microseconds(Int.random(in: 1_000...(20_000 * attempt))))
            }
        }
    }

    private func once<T: Sendable>(_ kind: Kind, _ body: @escaping @Sendable (any SQLSession) async throws -> T)
        async throws -> T
    {
        let begin = kind.begin + (bounds == primary.session ? [] : [bounds.setLocal])
        return try await leased { [logger, primary, bounds] connection, server in
            let workTimeout = bounds.work
            // Past its time the connection is closed: what the work awaits fails at once, and
            // the server is suspected, as a failover would have it.
            let overdue = Task {
                try await Task.sleep(for: workTimeout)
                logger.warning(
                    "PostgreSQL answered nothing in time; closing the connection",
                    metadata: ["server": "\(server)", "timeout": "\(workTimeout)"])
                primary.suspect(server, because: "no answer within \(workTimeout)")
                try? await connection.close()
            }
            defer { overdue.cancel() }
            let sign = FailoverSign()
            let session = PostgresSession(connection: connection, logger: logger, sign: sign, deadline: workTimeout)
            do {
                for statement in begin { _ = try await session.run(statement) }
                let result = try await body(session)
                _ = try await session.run("COMMIT")
                return result
            } catch {
                // A connection that cannot even roll back is closed: the pool replaces it.
                if (try? await session.run("ROLLBACK")) == nil { try? await connection.close() }
                if sign.isSeen || connection.isClosed { primary.suspect(server, because: "\(error)") }
                throw error
            }
        }
    }

    /// How long a transaction waits for a connection of the pool (and, after a failover, for
    /// the new primary) before it gives up: the servers are down or refuse this process, and
    /// the caller should hear so.
    static let leaseTimeout: Duration = .seconds(15)

    /// How long a lease waits before it asks whether its server takes connections at all
    /// (``ServerReach``): far longer than a lease takes, unless the pool is saturated.
    static let reachCheckAfter: Duration = .milliseconds(500)

    /// Runs `work` on a connection leased from the primary's pool; the lease, not the work,
    /// is bounded by ``leaseTimeout``, and ends sooner when the server takes no connection
    /// (``reachCheckAfter``). A lease that fails so suspects its server.
    func leased<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection, Int) async throws -> T)
        async throws -> T
    {
        let state = LeaseState()
        let deadline = ContinuousClock.now + Self.leaseTimeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { [primary] in
                let server = try await primary.primary(within: Self.leaseTimeout)
                state.chose(server)
                do {
                    return try await primary.clients[server].withConnection { connection in
                        // Too late: the caller was told the server did not answer.
                        guard state.lease() else { throw SQLError.unreachable("PostgreSQL: no connection within 15 s") }
                        await primary.prepare(connection, server: server)
                        return try await work(connection, server)
                    }
                } catch  where !state.isLeased {
                    throw Self.leaseFailed(error)
                }
            }
            group.addTask { [primary, reach] in
                try? await Task.sleep(for: Self.reachCheckAfter)
                var away: String?
                while away == nil, ContinuousClock.now < deadline, !Task.isCancelled {
                    away = state.server.flatMap { reach.unreachable($0) }
                    if away == nil { try? await Task.sleep(for: .milliseconds(100)) }
                }
                guard state.expire() else { return nil }
                guard let server = state.server else { throw SQLError.unreachable("PostgreSQL: \(primary.notFound)") }
                let why = away ?? "PostgreSQL: no connection within 15 s"
                primary.suspect(server, because: why)
                throw SQLError.unreachable(why)
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    /// What a lease that never got its connection throws. The pool may give a lease up itself:
    /// after a minute of failed connects its circuit breaker fails every lease at once, with an
    /// error of its own that would read as the work's fault (a verdict dead-lettered for it):
    /// that is ``SQLError/unreachable(_:)``.
    static func leaseFailed(_ error: any Error) -> any Error {
        if error is SQLError || error is CancellationError { return error }
        return SQLError.unreachable("PostgreSQL: no connection (\(error))")
    }

    public func leadership(of name: String) -> any Leadership {
        PostgresLeadership(primary: primary, name: name, logger: logger)
    }
}

/// Whether a lease came before its deadline: whichever of the two is first decides. Also
/// which server the lease went to, once known.
private final class LeaseState: Sendable {
    private let state = Mutex<(leased: Bool, expired: Bool, server: Int?)>((false, false, nil))

    func chose(_ server: Int) {
        state.withLock { $0.server = server }
    }

    var server: Int? { state.withLock { $0.server } }

    /// Whether the lease came before its deadline.
    var isLeased: Bool { state.withLock { $0.leased } }

    /// False when the deadline came first.
    func lease() -> Bool {
        state.withLock { state in
            if !state.expired { state.leased = true }
            return state.leased
        }
    }

    /// True when the deadline came first.
    func expire() -> Bool {
        state.withLock { state in
            if !state.leased { state.expired = true }
            return state.expired
        }
    }
}
