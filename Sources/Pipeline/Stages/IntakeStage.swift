import Broker
import Console
import Database
import DeadLetters
import Hummingbird
import Intake
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// The intake's composition root: the receipt API, the relay that publishes what it
/// committed, the notifications' pruner, and the operators' console on the same port.
public enum IntakeStage {
    /// - Parameters:
    ///   - health: `/healthz`, `/readyz` and `/metrics`; nil serves none.
    ///   - console: mounted under `/console` (without operators it answers 503 and says why);
    ///     nil mounts nothing.
    ///   - onServerRunning: called with the bound port once the API listens.
    public static func services(
        _ parts: StageParts, configuration: IntakeConfiguration,
        relay: Relay.Configuration = .init(),
        database: any SQLDatabase, connection: AMQPConnection, health: HealthEndpoints?,
        console: ConsoleConfiguration?, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> [any Service] {
        var configuration = configuration
        configuration.stores = parts.stores
        configuration.appStores = parts.apps?.others.mapValues(\.stores) ?? [:]
        configuration.appCatalogs = parts.apps?.others.mapValues(\.catalog) ?? [:]
        let logger = parts.logger("intake")
        var intake = Intake(
            configuration: configuration, database: database, catalog: parts.catalog, connection: connection,
            topology: parts.topology, relayConfiguration: relay, health: health, logger: logger)
        if let console {
            // The console's reports read the whole database: long work, beside the intake's short.
            let reports = database.forLongWork()
            let console = OperatorConsole(
                configuration: console,
                review: DeadLetterReview(
                    store: DeadLetterRepository(reports), connection: connection, topology: parts.topology),
                database: reports, catalog: parts.catalog, logger: parts.logger("console"))
            intake.additionalRoutes = { console.register(on: $0) }
        }
        return [intake.relay, intake.pruner, intake.application(onServerRunning: onServerRunning)]
    }
}
