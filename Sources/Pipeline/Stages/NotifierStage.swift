import HTTPClient
import Logging
import Notifier
import ServiceLifecycle
import Store

/// The notifier's composition root: the outbox delivered as signed webhooks. It reads no
/// catalog and calls no store.
public enum NotifierStage {
    public static func services(
        configuration: Notifier.Configuration, database: any SQLDatabase, logger: Logger
    ) throws -> [any Service] {
        // Webhook receivers are the game's, not a store's: the system's CAs.
        let client = try CurlHTTPClient(logger: logger)
        return [
            HTTPClientService(client: client),
            Notifier(configuration: configuration, database: database, client: client, logger: logger),
        ]
    }
}
