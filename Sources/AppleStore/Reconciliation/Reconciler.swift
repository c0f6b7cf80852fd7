import AppStore
import Database
import Foundation
import Logging
import Observability
import PipelineCore
import Repositories
import SettlementWriter

/// Finds the App Store Server Notifications Apple never delivered to us and feeds them in.
///
/// Apple retries a notification five times over three days, then gives up; its Notification
/// History lists, per deployment, the ones that never reached us (`onlyFailures`). Each we
/// never stored (by payload, or by `notificationUUID` for a resend signed anew) is stored
/// through the intake's own path, ``NotificationRepository/acceptNotification(id:store:payload:payloadHash:now:)``,
/// and the relay publishes it through the validate queue: the validator verifies its
/// signature, and the settlement engine applies it once, like any other. A second run finds
/// it stored and feeds nothing.
public struct Reconciler: Sendable {
    let api: AppStoreServerAPIClient
    let environments: [AppStoreServerAPIEnvironment]
    let runs: ReconciliationRepository
    let notifications: NotificationRepository
    /// The app whose History is read (``AppScope/key``): what it feeds is that app's.
    let app: String
    let logger: Logger
    /// Pages asked per deployment at most: a token that never ends the list must not loop.
    static let maximumPages = 1_000

    /// - Parameter app: The app whose History `api` reads (issue 30): its runs are its own,
    ///   so another app's last complete run is not where this one goes on.
    public init(
        api: AppStoreServerAPIClient, environments: [AppStoreServerAPIEnvironment], database: any SQLDatabase,
        app: AppScope = .single, logger: Logger
    ) {
        self.api = api
        self.environments = environments
        self.runs = ReconciliationRepository(database, app: app.key)
        self.app = app.key
        self.notifications = NotificationRepository(database)
        self.logger = logger
    }

    /// One run over `window`; recorded, counted in the metrics, and reported.
    public func run(
        _ window: ReconciliationWindow, trigger: ReconciliationRun.Trigger, dryRun: Bool,
        now: @Sendable () -> Date = { Date() }
    ) async -> ReconciliationReport {
        var report = ReconciliationReport(window: window, dryRun: dryRun)
        let started = now()
        do {
            for environment in environments {
                report.environments.append(try await reconcile(environment, window, dryRun: dryRun, now: now))
            }
        } catch {
            report.error = "\(error)"
        }
        let run = ReconciliationRun(
            trigger: trigger, dryRun: dryRun, windowStart: window.start, windowEnd: window.end,
            examined: report.examined, missing: report.missing.count, fed: report.fed, error: report.error,
            startedAt: started, finishedAt: now())
        do {
            try await runs.record(run)
        } catch {
            report.error = report.error ?? "the run was not recorded: \(error)"
        }
        PipelineMetrics.reconcileRuns(report.error != nil ? "failed" : report.missing.isEmpty ? "clean" : "fixed")
            .increment()
        logger.log(
            level: report.error != nil ? .error : report.missing.isEmpty ? .info : .warning,
            "reconciliation with Apple's Notification History",
            metadata: [
                "window": "\(window)", "examined": "\(report.examined)", "missing": "\(report.missing.count)",
                "fed": "\(report.fed)", "dry_run": "\(dryRun)", "error": "\(report.error ?? "none")",
            ])
        return report
    }

    private func reconcile(
        _ environment: AppStoreServerAPIEnvironment, _ window: ReconciliationWindow, dryRun: Bool,
        now: @Sendable () -> Date
    ) async throws -> ReconciliationReport.Deployment {
        var result = ReconciliationReport.Deployment(environment: environment.rawValue)
        let request = NotificationHistoryRequest(start: window.start, end: window.end, onlyFailures: true)
        var token: String?
        var listed: [NotificationHistoryResponseItem] = []
        for _ in 0..<Self.maximumPages {
            let page = try await api.getNotificationHistory(request, paginationToken: token, in: environment).body
            listed += page.notificationHistory ?? []
            guard page.hasMore == true, let next = page.paginationToken, next != token else { break }
            token = next
        }
        result.examined = listed.count
        let byHash = Dictionary(listed.map { (PayloadHash.notification($0.signedPayload), $0) }) { first, _ in first }
        let unknown = try await runs.unknown(
            byHash.map {
                ReconciliationRepository.Listed(
                    payloadHash: $0.key, notificationUUID: NotificationPeek($0.value.signedPayload)?.notificationUUID)
            })
        for item in unknown {
            guard let found = byHash[item.payloadHash] else { continue }
            let peek = NotificationPeek(found.signedPayload)
            var missing = ReconciliationReport.Missing(
                environment: environment.rawValue, notificationUUID: peek?.notificationUUID,
                notificationType: peek?.notificationType, notificationID: nil)
            if !dryRun {
                let accepted = try await notifications.acceptNotification(
                    id: TimeOrderedID.make(), app: app, payload: found.signedPayload, payloadHash: item.payloadHash,
                    now: now())
                missing.notificationID = accepted.id
                if accepted.created { result.fed += 1 }
            }
            result.missing.append(missing)
            PipelineMetrics.reconcileMissing(environment.rawValue).increment()
        }
        return result
    }
}
