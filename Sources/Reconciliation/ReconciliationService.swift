import Foundation
import Logging
import ServiceLifecycle
import Store

/// Reconciles on a schedule: every `interval`, the one process holding the lead reads
/// Apple's Notification History from where the last complete run ended.
public struct ReconciliationService: Service {
    let reconciler: Reconciler
    let interval: Duration
    let leadership: any Leadership
    let logger: Logger

    public init(reconciler: Reconciler, interval: Duration, leadership: any Leadership, logger: Logger) {
        self.reconciler = reconciler
        self.interval = interval
        self.leadership = leadership
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if await leadership.isLeader() {
                do {
                    let covered = try await reconciler.runs.coveredUntil()
                    let window = ReconciliationWindow.scheduled(coveredUntil: covered, now: Date())
                    _ = await reconciler.run(window, trigger: .schedule, dryRun: false)
                } catch {
                    logger.error("reconciliation could not read its last run", metadata: ["error": "\(error)"])
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        await leadership.resign()
    }
}
