import AppStore
import Foundation
import Logging
import PipelineCore
import ServiceLifecycle
import StorePlugins

extension AppleStore {
    /// Apple's jobs (``AppleJobs``), run by the fulfiller's process for each app with an App
    /// Store Server API key, each in one process at a time: reconciliation with the
    /// Notification History and the answers to consumption requests.
    public func services(_ context: StoreContext) -> [any Service] {
        guard let database = context.database else { return [] }
        let api: AppStoreServerAPIClient
        do {
            guard
                let client = try setup.serverAPIClient(
                    client: context.httpClient, budgets: context.budgets, logger: context.logger)
            else {
                if jobs.reconcileInterval != nil || jobs.answersConsumption {
                    context.logger.notice(
                        "IAP_APPSTORE_PRIVATE_KEY is not set: no reconciliation with Apple's Notification History, no answers to its consumption requests"
                    )
                }
                return []
            }
            api = client
        } catch {
            context.logger.error("Apple's jobs not started: \(error)")
            return []
        }
        func logger(_ job: String) -> Logger {
            var logger = context.logger
            logger[metadataKey: "job"] = "\(job)"
            return logger
        }
        var services: [any Service] = []
        if let interval = jobs.reconcileInterval {
            let reconciler = Reconciler(
                api: api, environments: jobs.reconcileEnvironments, database: database, app: context.app,
                logger: logger("reconcile"))
            services.append(
                AppleJobService(
                    name: "reconciliation", interval: interval, leadership: context.leadership("reconciliation"),
                    logger: context.logger, job: reconciler.runScheduled))
        }
        if jobs.answersConsumption {
            let responder = ConsumptionResponder(
                api: api, database: database, prefers: jobs.prefersRefunds, app: context.app,
                logger: logger("consumption"))
            services.append(
                AppleJobService(
                    name: "consumption answers", interval: .seconds(60),
                    leadership: context.leadership("consumption-answers"), logger: context.logger,
                    job: { _ = try await responder.answerPending() }))
        }
        return services
    }
}
