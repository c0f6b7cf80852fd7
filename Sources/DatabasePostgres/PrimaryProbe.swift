import Database
import Foundation
import Logging
import PostgresNIO
import SettlementWriter
import Synchronization

/// Asks every server of a location at once which one a process should write to, as libpq
/// does for `target_session_attrs`: a new connection each, and for `read-write` one query,
/// `pg_is_in_recovery()` (a standby) and `transaction_read_only` (a server set read-only).
enum PrimaryProbe {
    /// How long one server may take to accept a connection: a server cut off answers nothing.
    static let connectTimeout: Duration = .seconds(5)

    /// What a round found: the server to write to, or why each one is not, and whether one
    /// refused this process (a wrong password, no such database) rather than being away or
    /// read-only for now.
    enum Outcome: Sendable {
        case found(Int)
        case none(reasons: [String], refused: Bool)
    }

    /// Why one server does not qualify.
    struct Reason: Sendable {
        var text: String
        /// The server answered and refused the login: waiting will not change it.
        var refused = false
    }

    /// Probes every server concurrently; the first that qualifies is the answer, without
    /// waiting for the others (a server cut off would hold the round for its whole timeout).
    /// - Parameter startup: the server's settings for the probes' sessions.
    static func round(_ location: PostgresLocation, startup: [(String, String)], logger: Logger) async -> Outcome {
        await withCheckedContinuation { continuation in
            let answers = Answers(count: location.servers.count, continuation: continuation)
            for server in location.servers.indices {
                // Unstructured: a probe still waiting when another qualified finishes alone.
                Task {
                    let verdict = await probe(server, location, startup: startup, logger: logger)
                    answers.add(server, verdict)
                }
            }
        }
    }

    /// Nil when `server` qualifies, else why not.
    static func probe(_ server: Int, _ location: PostgresLocation, startup: [(String, String)], logger: Logger) async
        -> Reason?
    {
        let name = location.servers[server].description
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: location.connectionConfiguration(
                    server: server, timeout: connectTimeout, startup: startup),
                id: 100 + server, logger: logger)
        } catch let error as PSQLError {
            let translated = PostgresSession.translate(error)
            let away = SQLError.blame(translated) != .work
            return Reason(text: "\(name): \(translated.message)", refused: !away)
        } catch {
            return Reason(text: "\(name): \(error)")
        }
        defer { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
        guard location.target == .readWrite else { return nil }
        do {
            // The check is one quick query: a server that holds it is as good as away.
            let session = PostgresSession(connection: connection, logger: logger, deadline: connectTimeout)
            let rows = try await session.rows(
                """
                SELECT pg_is_in_recovery() AS standby,
                  current_setting('transaction_read_only') = 'on' AS read_only
                """, [])
            guard let row = rows.first else { return Reason(text: "\(name): no answer to the check") }
            if try row.get("standby", as: Bool.self) { return Reason(text: "\(name): a standby (read-only)") }
            if try row.get("read_only", as: Bool.self) { return Reason(text: "\(name): read-only") }
            return nil
        } catch {
            return Reason(text: "\(name): \((error as? SQLError)?.message ?? "\(error)")")
        }
    }
}

/// The answers of one round as they come: resumes the round once, at the first server that
/// qualifies or when every server has answered.
private final class Answers: Sendable {
    private struct State {
        var continuation: CheckedContinuation<PrimaryProbe.Outcome, Never>?
        var reasons: [Int: PrimaryProbe.Reason] = [:]
    }

    private let count: Int
    private let state: Mutex<State>

    init(count: Int, continuation: CheckedContinuation<PrimaryProbe.Outcome, Never>) {
        self.count = count
        state = Mutex(State(continuation: continuation))
    }

    func add(_ server: Int, _ reason: PrimaryProbe.Reason?) {
        let (continuation, outcome): (CheckedContinuation<PrimaryProbe.Outcome, Never>?, PrimaryProbe.Outcome) =
            state.withLock { state in
                guard let continuation = state.continuation else { return (nil, .found(server)) }
                if let reason {
                    state.reasons[server] = reason
                    guard state.reasons.count == count else { return (nil, .found(server)) }
                    state.continuation = nil
                    let reasons = state.reasons.sorted { $0.key < $1.key }.map(\.value)
                    return (
                        continuation, .none(reasons: reasons.map(\.text), refused: reasons.contains(where: \.refused))
                    )
                }
                state.continuation = nil
                return (continuation, .found(server))
            }
        continuation?.resume(returning: outcome)
    }
}
