import Database
import Foundation
import Logging
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Runs one of the jobs that talk to Apple after the fact (reconciliation, consumption
/// answers) every `interval`, in the one process holding its lead.
public struct AppleJobService: Service {
    let name: String
    let interval: Duration
    let leadership: any Leadership
    let logger: Logger
    let job: @Sendable () async throws -> Void

    public init(
        name: String, interval: Duration, leadership: any Leadership, logger: Logger,
        job: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.leadership = leadership
        self.logger = logger
        self.job = job
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if await leadership.isLeader() {
                do {
                    try await job()
                } catch {
                    logger.error("\(name) failed; trying again at the next pass", metadata: ["error": "\(error)"])
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        await leadership.resign()
    }
}

extension Reconciler {
    /// The scheduled run: from where the last complete one ended, to now.
    public func runScheduled() async throws {
        let window = ReconciliationWindow.scheduled(coveredUntil: try await runs.coveredUntil(), now: Date())
        _ = await run(window, trigger: .schedule, dryRun: false)
    }
}
