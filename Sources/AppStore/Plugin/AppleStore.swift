import PipelineCore
import StorePlugins

/// Apple as a store of the registry (`apple`): its settings (``AppleSetup``) and its
/// verifier, which the validator reaches by routing Apple's evidence like any store's.
///
/// Apple is always on: without its variables it verifies against Apple's own endpoints and
/// roots. Its receipt members (`receipt_data`, `signed_transaction`) and its notification
/// route (`POST /v1/apple/notifications`) are in AppleStore+Intake.swift, and what it is owed
/// after a credit (an app account token) in AppleStore+Confirmations.swift.
public struct AppleStore: StorePlugin {
    public static let id = StoreEvidence.appleStore

    public let setup: AppleSetup

    public init(setup: AppleSetup) {
        self.setup = setup
    }

    public init?(environment: EnvironmentReader) throws(SettingError) {
        self.init(setup: try AppleSetup(environment: environment))
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
    /// Apple as this registry has it configured; nil in a registry without it (some tests').
    public var apple: AppleSetup? { (configured[AppleStore.id] as? AppleStore)?.setup }
}
