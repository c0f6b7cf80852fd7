import Database
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Whether a server takes connections now, for leases that wait: postgres-nio's pool keeps a
/// lease waiting while its connects fail (a server stopped, restarting or cut off), and says
/// nothing until its circuit breaker opens a minute later. A connection of our own tells at
/// once, and the lease fails as ``SQLError/unreachable(_:)``: the intake answers 503 and the
/// stages pause now, not at the lease's deadline.
///
/// One probe per server at a time, its answer kept for a second: many waiting leases cost
/// one connection. Asking never waits (a lease's wait must end the moment its connection
/// comes): it gives the last answer, and starts a probe when that is stale.
final class ServerReach: Sendable {
    private enum Answer {
        case probing
        case reachable
        case unreachable(String)
    }

    private let location: PostgresLocation
    private let logger: Logger
    private let answers = Mutex<[Int: (at: ContinuousClock.Instant, answer: Answer)]>([:])

    /// How long an answer stands.
    static let kept: Duration = .seconds(1)

    init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Why `server` took no connection at the last probe, if that is recent; nil when it took
    /// one, or refused this process, or is full (the pool's own connections may come back
    /// then), or while a probe runs.
    func unreachable(_ server: Int) -> String? {
        let (known, start) = answers.withLock { answers -> (String?, Bool) in
            switch answers[server] {
            case (_, .probing)?: return (nil, false)
            case let (at, answer)? where ContinuousClock.now - at < Self.kept:
                if case .unreachable(let why) = answer { return (why, false) }
                return (nil, false)
            default:
                answers[server] = (.now, .probing)
                return (nil, true)
            }
        }
        if start {
            Task { [self] in
                let why = await Self.probe(server, location, logger: logger)
                answers.withLock { $0[server] = (.now, why.map(Answer.unreachable) ?? .reachable) }
            }
        }
        return known
    }

    private static func probe(_ server: Int, _ location: PostgresLocation, logger: Logger) async -> String? {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: location.connectionConfiguration(server: server, timeout: PrimaryProbe.connectTimeout),
                id: 200 + server, logger: logger)
            try? await connection.close()
            return nil
        } catch let error as PSQLError {
            guard case .unreachable(let message) = PostgresSession.translate(error) else { return nil }
            return message
        } catch {
            return nil
        }
    }
}
