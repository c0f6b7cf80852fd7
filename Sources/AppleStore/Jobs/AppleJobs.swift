import AppStore
import PipelineCore

/// The work that talks to Apple after the fact, run beside the fulfiller when the App Store
/// Server API is configured: reconciliation with the Notification History, and answers to
/// Apple's consumption requests. (The app account tokens owed for purchases credited without
/// one are Apple's store confirmations, paid by the fulfiller's `StoreConfirmer`.)
public struct AppleJobs: Sendable, Equatable {
    /// Every how long the Notification History is reconciled (`IAP_RECONCILE_INTERVAL_SECONDS`); nil: never.
    public var reconcileInterval: Duration?
    /// The deployments reconciled (`IAP_RECONCILE_ENVIRONMENTS`).
    public var reconcileEnvironments: [AppStoreServerAPIEnvironment] = [.production, .sandbox]
    /// Whether Apple's consumption requests are answered (`IAP_CONSUMPTION_ANSWERS`).
    public var answersConsumption = false
    /// Whether an answer states a refund preference (`IAP_CONSUMPTION_REFUND_PREFERENCE`).
    public var prefersRefunds = true

    /// None: what tests that compose Apple by hand start from.
    public init() {}

    /// The jobs as the environment asks for them: reconciliation every hour of both
    /// deployments, no consumption answers, by default.
    /// - Throws: ``SettingError`` naming the variable at fault.
    public init(environment env: EnvironmentReader) throws(SettingError) {
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
        reconcileEnvironments = environments
        let interval = try env.int("IAP_RECONCILE_INTERVAL_SECONDS", default: 3600, range: 0...604_800)
        reconcileInterval = interval > 0 ? .seconds(interval) : nil
        answersConsumption = try env.choice("IAP_CONSUMPTION_ANSWERS", ["off": false, "on": true], default: "off")
        prefersRefunds = try env.prefersRefunds()
    }
}
