import Foundation
import Logging
import PostgresNIO
import Store
import Synchronization

/// A PostgreSQL database (`IAP_DATABASE_URL`): a pool of connections (postgres-nio's
/// `PostgresClient`) and the schema.
///
/// The stores run on it the way they run on SQLite: every transaction leases a connection,
/// and each statement is a round trip the task awaits, holding no thread. A transaction that
/// lost a race with another process's (a deadlock, a serialization failure) is run again, a
/// few times, from the start; a connection the server ended is dropped and the error is
/// ``SQLError/unreachable(_:)``, which the stages treat as transient.
///
/// The pool runs from `init` until ``close()``: the database is opened by long-running
/// stages and one-shot commands alike, and each closes it when done.
public final class PostgresPipelineDatabase: SQLDatabase {
    public let location: PostgresLocation
    let logger: Logger
    private let client: PostgresClient
    private let pool: Task<Void, Never>

    /// Nothing is connected until the first transaction.
    /// - Parameter connections: how many transactions this process runs at once, at most.
    public init(location: PostgresLocation, connections: Int = 8, logger: Logger) {
        self.location = location
        self.logger = logger
        // A location that parsed has a valid TLS mode; only NIOSSL's own failure could throw.
        let configuration =
            (try? location.clientConfiguration(connections: connections))
            ?? PostgresClient.Configuration(
                host: location.host, port: location.port, username: location.user, password: nil,
                database: location.database, tls: .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        pool = Task { await client.run() }
    }

    deinit { pool.cancel() }

    /// Closes every connection, and waits until they are closed.
    public func close() async {
        pool.cancel()
        await pool.value
    }

    /// What a transaction may do, and how its commit reaches the disk.
    enum Kind: Sendable {
        case write(CommitSync)
        case read

        var begin: [String] {
            switch self {
            case .read: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
            case .write(.durable): ["BEGIN"]
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
        try await leased { [logger] connection in
            let session = PostgresSession(connection: connection, logger: logger)
            do {
                for statement in kind.begin { _ = try await session.run(statement) }
                let result = try await body(session)
                _ = try await session.run("COMMIT")
                return result
            } catch {
                // A connection that cannot even roll back is closed: the pool replaces it.
                if (try? await session.run("ROLLBACK")) == nil { try? await connection.close() }
                throw error
            }
        }
    }

    /// How long a transaction waits for a connection of the pool before it gives up: the
    /// server is down or refuses this process, and the caller should hear so.
    static let leaseTimeout: Duration = .seconds(15)

    /// Runs `work` on a leased connection; the lease, not the work, is bounded by
    /// ``leaseTimeout``.
    private func leased<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let state = LeaseState()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { [client] in
                try await client.withConnection { connection in
                    // Too late: the caller was told the server did not answer.
                    guard state.lease() else { throw SQLError.unreachable("PostgreSQL: no connection within 15 s") }
                    return try await work(connection)
                }
            }
            group.addTask {
                try? await Task.sleep(for: Self.leaseTimeout)
                if state.expire() { throw SQLError.unreachable("PostgreSQL: no connection within 15 s") }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    public func leadership(of name: String) -> any Leadership {
        PostgresLeadership(location: location, name: name, logger: logger)
    }
}

/// Whether a lease came before its deadline: whichever of the two is first decides.
private final class LeaseState: Sendable {
    private let state = Mutex<(leased: Bool, expired: Bool)>((false, false))

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
