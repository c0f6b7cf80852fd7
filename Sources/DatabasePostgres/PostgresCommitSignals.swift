import Database
import Logging
import PipelineCore
import PostgresNIO
import SettlementWriter

/// `LISTEN` on a connection of its own to the primary: the commits that signalled a channel
/// (`NOTIFY`, ``PostgresSession/signal(_:)``) are heard as they happen, across processes.
extension PostgresPipelineDatabase: CommitSignals {
    public var commitSignals: (any CommitSignals)? { self }

    public func listen(to channel: CommitChannel, heard: @escaping @Sendable () -> Void) async {
        let backoff = Backoff(base: .milliseconds(200), cap: .seconds(10))
        var failures = 0
        while !Task.isCancelled {
            do {
                try await listenOnce(to: channel, heard: heard) { failures = 0 }
            } catch {
                guard !Task.isCancelled else { return }
                failures += 1
                // The listener's callers poll meanwhile, only slower: a notice, not an alarm.
                logger.notice(
                    "not listening to PostgreSQL's commits; connecting again",
                    metadata: ["channel": "\(channel.rawValue)", "error": "\(error)", "failures": "\(failures)"])
            }
            try? await Task.sleep(for: backoff.delay(afterFailures: failures))
        }
    }

    /// Listens until the connection fails, the primary moves elsewhere, or the task is cancelled.
    private func listenOnce(
        to channel: CommitChannel, heard: @escaping @Sendable () -> Void, listening: () -> Void
    ) async throws {
        let (connection, server) = try await primary.connect(id: 2, logger: logger)
        do {
            try await connection.listen(on: channel.rawValue) { notifications in
                listening()
                // Whatever was signalled before the LISTEN took hold is looked for now.
                heard()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in notifications { heard() }
                        throw SQLError.unreachable("PostgreSQL ended the listening session")
                    }
                    // A failover leaves this session on a server that no longer commits.
                    group.addTask { [primary] in
                        while true {
                            try await Task.sleep(for: .seconds(2))
                            if let current = primary.current, current != server {
                                throw SQLError.unreachable("the primary moved")
                            }
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
