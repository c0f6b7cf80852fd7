import AppStore
import PipelineCore
import StorePlugins

/// Apple as a store of the registry (`apple`): its settings (``AppleSetup``) and its
/// verifier, which the validator reaches by routing Apple's evidence like any store's.
///
/// Apple is always on: without its variables it verifies against Apple's own endpoints and
/// roots. Its receipt members (`receipt_data`, `signed_transaction`) and its notification
/// route (`POST /v1/apple/notifications`) are in AppleStore+Intake.swift, what it is owed
/// after a credit (an app account token) in AppleStore+Confirmations.swift, and its jobs in
/// AppleStore+Jobs.swift.
public struct AppleStore: StorePlugin {
    public static let id = StoreEvidence.appleStore

    public let setup: AppleSetup
    /// What the fulfiller's process runs for it (AppleStore+Jobs.swift).
    public let jobs: AppleJobs

    public init(setup: AppleSetup, jobs: AppleJobs = AppleJobs()) {
        self.setup = setup
        self.jobs = jobs
    }

    public init?(environment: EnvironmentReader) throws(SettingError) {
        self.init(setup: try AppleSetup(environment: environment), jobs: try AppleJobs(environment: environment))
    }

    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        context.logger.info("legacy receipts verified: \(setup.receiptVerification.rawValue)")
        if setup.signedData == nil {
            context.logger.notice("IAP_APP_APPLE_ID is not set: StoreKit 2 signed data is rejected in Production")
        }
        return try setup.verifier(client: context.httpClient, budgets: context.budgets, logger: context.logger)
    }

    /// Only the App Store Server API spends a budget every process shares.
    public var talksToStore: Bool { setup.serverAPIKey != nil }
}

extension StoreRegistry {
    /// Apple's plug-in as this registry has it configured; nil in a registry without it.
    public var appleStore: AppleStore? { configured[AppleStore.id] as? AppleStore }

    /// Apple's settings as this registry has them configured; nil in a registry without it
    /// (some tests'). Set, Apple is configured with them, its jobs kept.
    public var apple: AppleSetup? {
        get { appleStore?.setup }
        set {
            guard let newValue else { return }
            self = with(AppleStore(setup: newValue, jobs: appleStore?.jobs ?? AppleJobs()))
        }
    }

    /// Apple's jobs as this registry has them configured. Set, Apple keeps its settings and
    /// runs these (nothing changes in a registry without Apple).
    public var appleJobs: AppleJobs? {
        get { appleStore?.jobs }
        set {
            guard let newValue, let apple = appleStore else { return }
            self = with(AppleStore(setup: apple.setup, jobs: newValue))
        }
    }
}
