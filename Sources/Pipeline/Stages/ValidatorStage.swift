import AppStore
import Broker
import Logging
import PipelineCore
import ServiceLifecycle
import Validator

/// The validator's composition root: Apple's evidence verified as ``AppleSetup`` says, every
/// plug-in store's routed to its plug-in, over one HTTP client sized to the verifications
/// in flight.
public enum ValidatorStage {
    /// - Parameter budgets: where the stores' call budgets are kept (the pipeline's database,
    ///   which every validator sees); nil keeps them in this process, for a validator that
    ///   calls no rate-limited API.
    public static func services(
        _ parts: StageParts, apple: AppleSetup, configuration: Validator.Configuration, connection: AMQPConnection,
        budgets: (any CallBudgetKeeper)?
    ) throws -> [any Service] {
        let logger = parts.logger("validator")
        let client = try parts.httpClient(inFlight: configuration.concurrency, logger: logger)
        let budgets = budgets ?? LocalCallBudgetKeeper()
        logger.info("legacy receipts verified: \(apple.receiptVerification.rawValue)")
        if apple.signedData == nil {
            logger.notice("IAP_APP_APPLE_ID is not set: StoreKit 2 signed data is rejected in Production")
        }
        let verifier = try PluginStores.verifier(
            parts.stores, builtIn: try apple.verifier(client: client, budgets: budgets, logger: logger),
            httpClient: client, budgets: budgets, catalog: parts.catalog, logger: logger)
        return [
            HTTPClientService(client: client),
            Validator(
                connection: connection, topology: parts.topology, verifier: verifier, configuration: configuration,
                logger: logger),
        ]
    }

    /// Whether a validator calls an API whose budget all validators share (the App Store
    /// Server API, a plug-in store's): it then needs the pipeline's database.
    public static func spendsSharedBudgets(_ parts: StageParts, apple: AppleSetup) -> Bool {
        apple.serverAPIKey != nil || parts.stores.configured.values.contains(where: \.talksToStore)
    }
}
