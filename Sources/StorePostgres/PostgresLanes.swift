import Foundation
import Logging
import NIOPosix
import PipelineCore
import PostgresNIO
import Store
import Synchronization

/// Connections to PostgreSQL, each on a thread of its own: a transaction runs on one lane
/// from `BEGIN` to `COMMIT`, blocking only that thread.
///
/// A lane connects when first used and again after its connection broke; a transaction
/// that lost a race with another process's (a deadlock, a serialization failure) is run
/// again, a few times, from the start.
final class PostgresLanes: Sendable {
    private let lanes: [Lane]
    private let next = Atomic<Int>(0)

    init(location: PostgresLocation, count: Int, logger: Logger) {
        lanes = (0..<max(1, count)).map { Lane(index: $0, location: location, logger: logger) }
    }

    /// Runs `body` in a transaction on the next lane.
    func transaction<T: Sendable>(
        _ kind: Lane.Kind, _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) async throws -> T {
        let lane = nextLane()
        return try await lane.thread.run { try lane.transaction(kind, body) }
    }

    /// Runs `body` in a transaction on the next lane, the calling thread waiting for it.
    func blockingTransaction<T: Sendable>(
        _ kind: Lane.Kind, _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) throws -> T {
        let lane = nextLane()
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        lane.thread.execute {
            let result = Result { try lane.transaction(kind, body) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    private func nextLane() -> Lane {
        lanes[next.add(1, ordering: .relaxed).oldValue % lanes.count]
    }

    /// Closes every lane's connection and waits until it is closed.
    func close() async {
        for lane in lanes { _ = try? await lane.thread.run { lane.disconnect() } }
    }

    /// Closes the connections and ends the threads, without waiting.
    func shutdown() {
        for lane in lanes {
            lane.thread.execute { lane.disconnect() }
            lane.thread.shutdown()
        }
    }

    /// One connection and its thread. Its mutable state is touched on that thread only.
    final class Lane: @unchecked Sendable {
        let thread: SerialThread
        private let location: PostgresLocation
        private let logger: Logger
        private let index: Int
        private var connection: PostgresConnection?

        init(index: Int, location: PostgresLocation, logger: Logger) {
            self.index = index
            self.location = location
            self.logger = logger
            self.thread = SerialThread(name: "postgres-\(index)")
        }

        static let attempts = 5

        /// What a transaction may do, and how its commit reaches the disk.
        enum Kind: Sendable {
            case write(CommitSync)
            case read

            var begin: String {
                switch self {
                case .read: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
                case .write(.durable): "BEGIN"
                // Its loss only repeats work (a published mark): the commit does not wait for
                // the WAL flush. The next durable commit flushes it too.
                case .write(.relaxed): "BEGIN; SET LOCAL synchronous_commit = off"
                }
            }
        }

        func transaction<T>(_ kind: Kind, _ body: (any SQLSession) throws -> T) throws -> T {
            var attempt = 1
            while true {
                do {
                    return try once(kind, body)
                } catch SQLError.retry(let message) where attempt < Self.attempts {
                    logger.debug(
                        "transaction lost a race; running it again",
                        metadata: ["attempt": "\(attempt)", "error": "\(message)"])
                    attempt += 1
                    // Apart, so that two transactions that collided do not collide again.
                    usleep(UInt32.random(in: 1_000...(20_000 * UInt32(attempt))))
                }
            }
        }

        private func once<T>(_ kind: Kind, _ body: (any SQLSession) throws -> T) throws -> T {
            let session = PostgresSession(connection: try connected(), logger: logger)
            do {
                for statement in kind.begin.split(separator: ";") { _ = try session.run(String(statement), []) }
                let result = try body(session)
                _ = try session.run("COMMIT", [])
                return result
            } catch {
                // A broken connection is dropped; the next transaction connects again.
                if (try? session.run("ROLLBACK", [])) == nil { disconnect() }
                throw error
            }
        }

        /// Runs `body` on this lane's connection outside any transaction (session-level
        /// advisory locks live as long as the connection); a broken connection is dropped.
        func outsideTransaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
            let session = PostgresSession(connection: try connected(), logger: logger)
            do {
                return try body(session)
            } catch {
                if case SQLError.unreachable = error { disconnect() }
                throw error
            }
        }

        private func connected() throws -> PostgresConnection {
            if let connection, !connection.isClosed { return connection }
            do {
                let made = try PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(),
                    configuration: try location.connectionConfiguration(timeout: .seconds(10)), id: index,
                    logger: logger
                ).wait()
                connection = made
                return made
            } catch let error as PSQLError {
                throw PostgresSession.translate(error)
            } catch {
                throw SQLError.unreachable("PostgreSQL: \(error)")
            }
        }

        func disconnect() {
            try? connection?.close().wait()
            connection = nil
        }
    }
}
