import AppStore

/// The work that talks to Apple after the fact, run beside the fulfiller when the App Store
/// Server API is configured: reconciliation with the Notification History, and answers to
/// Apple's consumption requests. (The app account tokens owed for purchases credited without
/// one are Apple's store confirmations, paid by the fulfiller's `StoreConfirmer`.)
public struct AppleJobs: Sendable {
    /// Every how long the Notification History is reconciled (`IAP_RECONCILE_INTERVAL_SECONDS`); nil: never.
    public var reconcileInterval: Duration?
    /// The deployments reconciled (`IAP_RECONCILE_ENVIRONMENTS`).
    public var reconcileEnvironments: [AppStoreServerAPIEnvironment] = [.production, .sandbox]
    /// Whether Apple's consumption requests are answered (`IAP_CONSUMPTION_ANSWERS`).
    public var answersConsumption = false
    /// Whether an answer states a refund preference (`IAP_CONSUMPTION_REFUND_PREFERENCE`).
    public var prefersRefunds = true

    public init() {}
}
