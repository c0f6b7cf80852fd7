import Database
import Foundation
import Logging
import PipelineCore
import PostgresNIO
import SettlementWriter
import Synchronization

/// Which server of the location a process writes to, and finding it again after a failover.
///
/// postgres-nio's `PostgresClient` connects to one host and its pool takes no other way of
/// making connections, so there is one client per server, made at start and kept, and every
/// lease goes to the current primary's. A client nobody leases from holds no connection (its
/// idle ones close after a minute), so the others cost nothing; the old primary's is used again
/// if that server is promoted back. Replacing a single client at each failover would race with
/// leases in flight on the old one; a connection factory of our own would be a pool of our own.
///
/// Work that fails because its connection broke, because the server is read-only (a demoted
/// server, a standby) or because no connection came, *suspects* its server: the next lease looks
/// for the primary again. One search runs at a time, for as long as leases wait for it, its
/// rounds spaced by a backoff; the failed work stays a transient error the stages retry.
final class PostgresPrimary: Sendable {
    let location: PostgresLocation
    /// One pool per server, in the location's order.
    let clients: [PostgresClient]
    private let pools: [Task<Void, Never>]
    private let logger: Logger
    private let state: Mutex<State>
    let timeouts: PostgresTimeouts
    /// The bounds every session starts with.
    let session: WorkBounds
    /// The server's settings for every session (``PostgresTimeouts/startupParameters(_:)``).
    let startup: [(String, String)]
    /// Per server, the pooled connections whose socket has its dead-peer options.
    private let prepared: Mutex<[Set<PostgresConnection.ID>]>

    private struct State {
        /// The server to write to; nil while it must be looked for.
        var current: Int?
        /// The running search, if any: at most one.
        var search: Task<Void, Never>?
        /// A lease asked during the current round: the search goes on after it.
        var wanted = false
        /// Rounds in a row that found no server to write to.
        var failedRounds = 0
        /// Why the last round found none, for the error leases give up with.
        var reasons: [String] = []
        /// No round starts before this: the backoff.
        var notBefore = ContinuousClock.now
        var closed = false
    }

    /// The first search starts with the first lease.
    /// - Parameters:
    ///   - timeouts: the dead-peer bound of every connection (socket and server side).
    ///   - session: the work bounds every session starts with (the server's settings).
    init(location: PostgresLocation, connections: Int, timeouts: PostgresTimeouts, session: WorkBounds, logger: Logger)
    {
        self.location = location
        self.logger = logger
        self.timeouts = timeouts
        self.session = session
        let startup = timeouts.startupParameters(session)
        self.startup = startup
        clients = location.servers.indices.map { server in
            // A location that parsed has a valid TLS mode; only NIOSSL's own failure could throw.
            let configuration =
                (try? location.clientConfiguration(
                    server: server, connections: connections, startup: startup,
                    connectTimeout: timeouts.deadPeer.timeout))
                ?? PostgresClient.Configuration(
                    host: location.servers[server].host, port: location.servers[server].port, username: location.user,
                    password: nil, database: location.database, tls: .disable)
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
        pools = clients.map { client in Task { await client.run() } }
        prepared = Mutex(Array(repeating: [], count: location.servers.count))
        state = Mutex(State(current: location.searchesForPrimary ? nil : 0))
    }

    deinit {
        for pool in pools { pool.cancel() }
        state.withLock { $0.search?.cancel() }
    }

    /// Closes every pool's connections and stops any search, and waits until they are closed.
    func close() async {
        let search = state.withLock { state in
            state.closed = true
            return state.search
        }
        search?.cancel()
        for pool in pools { pool.cancel() }
        for pool in pools { await pool.value }
    }

    /// The server written to now, if known.
    var current: Int? { state.withLock { $0.current } }

    /// The server to write to: the current primary, or the one a search finds within `timeout`.
    /// - Throws: ``SQLError/unreachable(_:)`` when no server qualified in time, naming why
    ///   each did not; `CancellationError` when the caller is cancelled.
    func primary(within timeout: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let current = currentOrSearch() { return current }
            guard ContinuousClock.now < deadline else { throw SQLError.unreachable("PostgreSQL: \(notFound)") }
            // Polling: the wait is only as long as a failover, and Task.sleep ends at cancellation.
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Work on `server` failed in a way that says it may no longer be the primary: the next
    /// lease looks again. Work that failed on a server already left changes nothing, so a
    /// failover's many failures start one search.
    func suspect(_ server: Int, because reason: @autoclosure () -> String) {
        guard location.searchesForPrimary else { return }
        let suspected = state.withLock { state in
            guard state.current == server else { return false }
            state.current = nil
            return true
        }
        if suspected {
            logger.warning(
                "PostgreSQL server may no longer be the primary; looking for it",
                metadata: ["server": "\(location.servers[server])", "reason": "\(reason())"])
        }
    }

    /// A connection of its own to the primary, outside the pools (administration, leadership);
    /// a server that refuses it is suspected.
    func connect(id: Int, logger: Logger) async throws -> (connection: PostgresConnection, server: Int) {
        let server = try await primary(within: Self.connectWait)
        do {
            let connection = try await PostgresConnection.connect(
                configuration: location.connectionConfiguration(
                    server: server, timeout: Self.connectWait, startup: startup),
                id: id, logger: logger)
            await guardSocket(connection)
            return (connection, server)
        } catch let error as PSQLError {
            let translated = PostgresSession.translate(error)
            if case .unreachable = translated { suspect(server, because: translated.message) }
            throw translated
        }
    }

    /// Gives a pooled connection of `server` its dead-peer options, the first time it is leased.
    func prepare(_ connection: PostgresConnection, server: Int) async {
        let isNew = prepared.withLock { $0[server].insert(connection.id).inserted }
        guard isNew else { return }
        // Forgotten when it closes, so that the set holds the pool's open connections only.
        let id = connection.id
        connection.closeFuture.whenComplete { [weak self] _ in
            _ = self?.prepared.withLock { $0[server].remove(id) }
        }
        await guardSocket(connection)
    }

    /// Sets the dead-peer options on `connection`'s socket. Without them a silent server is
    /// noticed by the work's timeout alone: worth a warning, not a refusal.
    private func guardSocket(_ connection: PostgresConnection) async {
        do {
            try await PostgresSocket.apply(timeouts.deadPeer, to: connection)
        } catch {
            if connection.isClosed { return }
            logger.warning(
                "cannot set the dead-peer options on a PostgreSQL socket; a silent server is noticed by the work's timeout only",
                metadata: ["error": "\(error)"])
        }
    }

    /// How long a connection of its own may take, the primary's search included.
    static let connectWait: Duration = .seconds(10)

    /// The server to write to, at start: rounds until one qualifies. Servers that are away or
    /// read-only (a failover under way, the whole cluster restarting) are waited for, logged as
    /// the search logs them; a server that refuses this process (a wrong password, no such
    /// database) stops it at once with each server's reason, as waiting will not help.
    func check() async throws -> Int {
        if !location.searchesForPrimary { return 0 }
        var round = 0
        while true {
            round += 1
            switch await PrimaryProbe.round(location, startup: startup, logger: logger) {
            case .found(let server):
                state.withLock { $0.current = $0.current ?? server }
                if round > 1 {
                    logger.notice(
                        "writing to the PostgreSQL primary", metadata: ["server": "\(location.servers[server])"])
                }
                return server
            case .none(let reasons, let refused):
                if refused { throw SQLError.database("\(nothingFound) (\(reasons.joined(separator: "; ")))") }
                logNone(reasons, round: round)
                try await Task.sleep(for: Self.backoff(round))
            }
        }
    }

    private var nothingFound: String {
        location.target == .readWrite ? "no server accepts writes" : "no server answers"
    }

    /// Why no server is written to, as the last round found.
    var notFound: String {
        let reasons = state.withLock { $0.reasons }
        return nothingFound + (reasons.isEmpty ? " yet" : " (\(reasons.joined(separator: "; ")))")
    }

    /// The current server, or nil after making sure a search is running.
    private func currentOrSearch() -> Int? {
        state.withLock { state in
            if let current = state.current { return current }
            state.wanted = true
            if state.search == nil, !state.closed {
                state.search = Task { [self] in await search() }
            }
            return nil
        }
    }

    /// Rounds until one finds a server to write to, or until nobody waits any more.
    private func search() async {
        while !Task.isCancelled {
            let wait = state.withLock { state in
                state.wanted = false
                return state.notBefore - ContinuousClock.now
            }
            if wait > .zero { try? await Task.sleep(for: wait) }
            let outcome = await PrimaryProbe.round(location, startup: startup, logger: logger)
            let (done, rounds) = state.withLock { state in
                switch outcome {
                case .found(let server):
                    state.current = server
                    state.failedRounds = 0
                    state.reasons = []
                    // Even a search that succeeded is not repeated at once: a server that
                    // keeps failing its work cannot make a storm of connections.
                    state.notBefore = ContinuousClock.now + Self.backoff(0)
                case .none(let reasons, _):
                    state.failedRounds += 1
                    state.reasons = reasons
                    state.notBefore = ContinuousClock.now + Self.backoff(state.failedRounds)
                }
                let done = state.current != nil || !state.wanted || Task.isCancelled
                if done { state.search = nil }
                return (done, state.failedRounds)
            }
            switch outcome {
            case .found(let server):
                logger.notice("writing to the PostgreSQL primary", metadata: ["server": "\(location.servers[server])"])
            case .none(let reasons, _):
                logNone(reasons, round: rounds)
            }
            if done { return }
        }
        state.withLock { $0.search = nil }
    }

    /// The pause before the next round: a quarter second, doubling after each round that found
    /// nothing, up to 4 s.
    static func backoff(_ failedRounds: Int) -> Duration {
        Backoff(base: .milliseconds(250), cap: .seconds(4)).delay(afterFailures: failedRounds)
    }

    /// The first round that found nothing is a warning, and about every minute after it.
    private func logNone(_ reasons: [String], round: Int) {
        let message: Logger.Message = "no PostgreSQL server accepts writes; looking again"
        let metadata: Logger.Metadata = ["round": "\(round)", "servers": "\(reasons.joined(separator: "; "))"]
        if round == 1 || round % 15 == 0 {
            logger.warning(message, metadata: metadata)
        } else {
            logger.debug(message, metadata: metadata)
        }
    }
}
