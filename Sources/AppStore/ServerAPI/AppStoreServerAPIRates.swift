import PipelineCore

/// Apple's rate limits for the App Store Server API, per app and endpoint, and how much of
/// them the pipeline spends
/// ([Identifying rate limits](https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits)).
///
/// Apple counts per second and enforces per hour; the sandbox gets a tenth. Every call books
/// its turn in a ``CallBudget`` named `appstore/<bundle id>/<environment>/<endpoint>`, kept
/// where every process sees it (the pipeline's store), so any number of validators together
/// stay under the limit.
public struct AppStoreServerAPIRates: Hashable, Sendable {
    /// Apple's production limits, in calls a second, by endpoint name.
    public static let appleLimits: [String: Double] = [
        "getTransactionInfo": 50, "getTransactionHistory": 50, "getAllSubscriptionStatuses": 50,
        "getNotificationHistory": 50, "sendConsumptionInformation": 50, "setAppAccountToken": 20,
        "lookUpOrderID": 10, "getRefundHistory": 10,
    ]
    /// The limit of an endpoint the table does not name: the smallest Apple gives.
    public static let unlistedLimit: Double = 10

    /// Limits by endpoint name, in production.
    public var limits: [String: Double]
    /// The sandbox's share of the production limits: Apple's 10 %.
    public var sandboxShare: Double
    /// The share of a limit spent. Below 1 so that the jitter between sending and Apple's
    /// counting never pushes one of Apple's seconds over.
    public var share: Double

    /// - Parameters:
    ///   - limits: Production limits by endpoint name; Apple's by default.
    ///   - sandboxShare: The sandbox's share of them.
    ///   - share: How much of a limit to spend.
    public init(limits: [String: Double] = appleLimits, sandboxShare: Double = 0.1, share: Double = 0.9) {
        precondition(sandboxShare > 0 && share > 0, "rate shares must be positive")
        self.limits = limits
        self.sandboxShare = sandboxShare
        self.share = share
    }

    /// The budget of `endpoint` at `environment` for the app `bundleID`.
    public func budget(
        for endpoint: String, at environment: AppStoreServerAPIEnvironment, bundleID: String
    ) -> CallBudget {
        let production = limits[endpoint] ?? Self.unlistedLimit
        let limit = environment == .production ? production : production * sandboxShare
        return CallBudget(
            name: "appstore/\(bundleID)/\(environment.rawValue.lowercased())/\(endpoint)", limit: limit, share: share)
    }
}
