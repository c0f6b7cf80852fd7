import AppStore
import Database
import Foundation
import HTTPClient
import Logging
import Pipeline
import PipelineCore
import Reconciliation
import Repositories
import SettlementWriter

/// Reconciliation with Apple's Notification History: which deployments, how often, and
/// the App Store Server API credentials it asks with (IAP_APPSTORE_*, as the validator's).
struct ReconcileSettings: Sendable {
    /// `IAP_RECONCILE_ENVIRONMENTS`: `production,sandbox` by default.
    var environments: [AppStoreServerAPIEnvironment]
    /// `IAP_RECONCILE_INTERVAL_SECONDS`: 3600 by default; 0 turns the scheduled run off.
    var interval: Int
    /// `IAP_CONSUMPTION_ANSWERS`: `on` answers Apple's consumption requests; `off` (the default).
    var answersConsumption: Bool
    /// `IAP_CONSUMPTION_REFUND_PREFERENCE`: `auto` (the default) sends one, `none` leaves it to Apple.
    var prefersRefunds: Bool
    var verifier: VerifierSettings
    /// The app of `IAP_APPS` these credentials are (`iap reconcile --app`); nil for the default app.
    var app: AppScope?

    init(environment env: EnvironmentReader, verifier: VerifierSettings) throws(SettingError) {
        let names = env.list("IAP_RECONCILE_ENVIRONMENTS")
        var environments: [AppStoreServerAPIEnvironment] = []
        for name in names.isEmpty ? ["production", "sandbox"] : names {
            guard
                let environment = AppStoreServerAPIEnvironment.allCases.first(where: {
                    $0.rawValue.lowercased() == name.lowercased()
                })
            else {
                throw SettingError(
                    variable: "IAP_RECONCILE_ENVIRONMENTS",
                    problem: "must list production and/or sandbox, got '\(name.prefix(64))'")
            }
            if !environments.contains(environment) { environments.append(environment) }
        }
        self.environments = environments
        self.interval = try env.int("IAP_RECONCILE_INTERVAL_SECONDS", default: 3600, range: 0...604_800)
        self.answersConsumption = try env.choice("IAP_CONSUMPTION_ANSWERS", ["off": false, "on": true], default: "off")
        self.prefersRefunds = try env.prefersRefunds()
        self.verifier = verifier
    }

    /// The fulfiller's Apple jobs as these settings have them.
    var appleJobs: AppleJobs {
        var jobs = AppleJobs()
        jobs.reconcileInterval = interval > 0 ? .seconds(interval) : nil
        jobs.reconcileEnvironments = environments
        jobs.answersConsumption = answersConsumption
        jobs.prefersRefunds = prefersRefunds
        return jobs
    }

    /// The reconciler and the HTTP client it owns (shut it down after), or nil without
    /// App Store Server API credentials.
    func makeReconciler(database: any SQLDatabase, logger: Logger) throws -> (Reconciler, CurlHTTPClient)? {
        guard let (api, client) = try makeAPI(budgets: MeteredCallBudgets.shared(database), logger: logger) else {
            return nil
        }
        // Each app's runs are its own: another app's last complete run is not where this one goes on.
        let runs = app.flatMap { $0.isDefault ? nil : $0.id }
        return (Reconciler(api: api, environments: environments, database: database, app: runs, logger: logger), client)
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
        guard let key = verifier.apple.serverAPIKey else { return nil }
        let client = try CurlHTTPClient(logger: logger)
        return (
            try AppStoreServerAPIClient(
                key: key, configuration: verifier.apple.serverAPI, httpClient: client,
                budgets: AppCallBudgets.of(app, in: budgets), logger: logger),
            client
        )
    }
}
