import Broker
import Logging
import PipelineCore
import ServiceLifecycle
import Validator

/// The validator's composition root: every store's evidence routed to its store's verifier
/// (Apple's among them), over one HTTP client sized to the verifications in flight.
public enum ValidatorStage {
    /// - Parameter budgets: where the stores' call budgets are kept (the pipeline's database,
    ///   which every validator sees); nil keeps them in this process, for a validator that
    ///   calls no rate-limited API.
    public static func services(
        _ parts: StageParts, configuration: Validator.Configuration, connection: AMQPConnection,
        budgets: (any CallBudgetKeeper)?
    ) throws -> [any Service] {
        let logger = parts.logger("validator")
        let client = try parts.httpClient(inFlight: configuration.concurrency, logger: logger)
        let verifier = try PluginStores.verifier(
            parts.stores, httpClient: client, budgets: budgets ?? LocalCallBudgetKeeper(), catalog: parts.catalog,
            logger: logger)
        return [
            HTTPClientService(client: client),
            Validator(
                connection: connection, topology: parts.topology, verifier: verifier, configuration: configuration,
                logger: logger),
        ]
    }

    /// Whether a validator calls an API whose budget all validators share (the App Store
    /// Server API, Google's, Huawei's, Stripe's): it then needs the pipeline's database.
    public static func spendsSharedBudgets(_ parts: StageParts) -> Bool {
        parts.stores.configured.values.contains(where: \.talksToStore)
    }
}
