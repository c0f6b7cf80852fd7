import AppStore
import AppleStore
import Database
import Foundation
import HTTPClient
import Logging
import Pipeline
import PipelineCore
import Repositories
import SettlementWriter

/// `iap reconcile`: which deployments of Apple's Notification History it reads, and the App
/// Store Server API credentials it asks with (IAP_APPSTORE_*, as the validator's). The
/// fulfiller's scheduled runs are Apple's plug-in's jobs (``AppleJobs``).
struct ReconcileSettings: Sendable {
    /// `IAP_RECONCILE_ENVIRONMENTS`: `production,sandbox` by default (``AppleJobs``).
    var environments: [AppStoreServerAPIEnvironment]
    var verifier: VerifierSettings
    /// The app of `IAP_APPS` these credentials are (`iap reconcile --app`); nil for the default app.
    var app: AppScope?

    init(environment env: EnvironmentReader, verifier: VerifierSettings) throws(SettingError) {
        let jobs = try AppleJobs(environment: env)
        self.environments = jobs.reconcileEnvironments
        self.verifier = verifier
    }

    /// The reconciler and the HTTP client it owns (shut it down after), or nil without
    /// App Store Server API credentials.
    func makeReconciler(database: any SQLDatabase, logger: Logger) throws -> (Reconciler, CurlHTTPClient)? {
        guard let (api, client) = try makeAPI(budgets: MeteredCallBudgets.shared(database), logger: logger) else {
            return nil
        }
        return (
            Reconciler(api: api, environments: environments, database: database, app: app ?? .single, logger: logger),
            client
        )
    }

    /// The account reconciler and the HTTP client it owns (shut it down after), or nil
    /// without App Store Server API credentials.
    func makeAccountReconciler(database: any SQLDatabase, logger: Logger) throws
        -> (AccountReconciler, CurlHTTPClient)?
    {
        guard let (api, client) = try makeAPI(budgets: MeteredCallBudgets.shared(database), logger: logger) else {
            return nil
        }
        return (AccountReconciler(api: api, database: database, logger: logger), client)
    }

    /// The App Store Server API client and the HTTP client it owns, or nil without credentials.
    /// - Parameter budgets: Where its call budgets are kept: the pipeline's store.
    func makeAPI(budgets: any CallBudgetKeeper, logger: Logger) throws -> (AppStoreServerAPIClient, CurlHTTPClient)? {
        guard let apple = verifier.stores.apple, let key = apple.serverAPIKey else { return nil }
        let client = try CurlHTTPClient(logger: logger)
        return (
            try AppStoreServerAPIClient(
                key: key, configuration: apple.serverAPI, httpClient: client,
                budgets: AppCallBudgets.of(app, in: budgets), logger: logger),
            client
        )
    }
}
