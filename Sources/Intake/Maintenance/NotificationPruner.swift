import Database
import Foundation
import Logging
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// Deletes rejected Apple notifications older than the retention, at start and then every
/// `interval`, run by the intake beside the relay. The notifications endpoint takes no
/// token, so what it stores must not grow without bound.
public struct NotificationPruner: Service {
    let notifications: NotificationRepository
    let retention: Duration
    let interval: Duration
    let logger: Logger
    let now: @Sendable () -> Date

    public init(
        notifications: NotificationRepository, retention: Duration, interval: Duration = .seconds(3600),
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.notifications = notifications
        self.retention = retention
        self.interval = interval
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await pruneOnce()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One pass: every rejected row past the retention, a thousand per transaction so that
    /// receipts waiting to commit are not held up.
    /// - Returns: how many rows were deleted.
    @discardableResult
    public func pruneOnce() async -> Int {
        let cutoff = now().addingTimeInterval(-retention.seconds)
        var total = 0
        do {
            while true {
                let deleted = try await notifications.pruneRejected(before: cutoff, limit: 1000)
                total += deleted
                if deleted < 1000 { break }
            }
        } catch {
            logger.warning("pruning rejected notifications failed; next pass later", metadata: ["error": "\(error)"])
        }
        if total > 0 { logger.info("pruned rejected Apple notifications", metadata: ["deleted": "\(total)"]) }
        return total
    }
}
