import Database
import HTTPClient
import Logging
import Notifier
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// The notifier's composition root: the outbox delivered as signed webhooks. It reads no
/// catalog and calls no store. Where the database tells of commits (PostgreSQL; SQLite on
/// one machine), the notifier is rung by the fulfillers' commits, in any process, instead of
/// polling.
public enum NotifierStage {
    public static func services(
        configuration: Notifier.Configuration, database: any SQLDatabase, logger: Logger
    ) throws -> [any Service] {
        // Webhook receivers are the game's, not a store's: the system's CAs.
        let client = try CurlHTTPClient(logger: logger)
        var configuration = configuration
        var listener: [any Service] = []
        if let signals = database.commitSignals {
            // In `iap up` the fulfiller beside it rings the same doorbell.
            let doorbell = configuration.doorbell ?? Doorbell()
            configuration.doorbell = doorbell
            listener = [OutboxListener(signals: signals, doorbell: doorbell)]
        }
        return [
            HTTPClientService(client: client),
            Notifier(configuration: configuration, database: database, client: client, logger: logger),
        ] + listener
    }
}
