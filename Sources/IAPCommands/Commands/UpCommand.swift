import AppStore
import ArgumentParser
import Console
import Foundation
import GooglePlay
import Intake
import Logging
import Notifier
import Observability
import Pipeline
import PipelineCore
import ServiceLifecycle
import StorePlugins
import Validator

extension IAP {
    /// Every stage in one process, against the stores its settings configure: the local way to
    /// run the pipeline, and a small deployment's. Without any store's settings it refuses to
    /// start (the demo runs it against the lab's stub stores: `scripts/up.sh`).
    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run intake, validator, fulfiller and notifier in one process.")

        @Option(help: "Verify requests in flight at once.") var concurrency = 256

        func validate() throws {
            guard (1...10_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1...10000") }
        }

        /// The prefixes of the stores' own variables (and the apps file, which holds them per
        /// app): one of them set is a store configured on purpose.
        static let storeVariablePrefixes = ["IAP_APPS"] + PluginStores.registered.flatMap { $0.variablePrefixes }

        /// Why `iap up` does not start when no store is configured, and how to start the demo.
        static let noStores = """
            no store is configured: set the variables of the stores to verify with (IAP_VERIFY_URL, \
            IAP_BUNDLE_ID, IAP_GOOGLE_SERVICE_ACCOUNT, IAP_HUAWEI_CLIENT_ID, IAP_STRIPE_API_KEY, ... or \
            IAP_APPS; docs/configuration.md). To try the pipeline against the lab's stub stores, run \
            scripts/up.sh (iap-lab stub-store --env-file var/stub.env, then set -a; . var/stub.env; \
            set +a; iap up)
            """

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("up")
            let env = settings.environment
            guard
                env.values.contains(where: { name, value in
                    !value.isEmpty && Self.storeVariablePrefixes.contains { name.hasPrefix($0) }
                })
            else { throw ValidationError(Self.noStores) }
            // With IAP_APPS, the default app's stores and catalog, and every other app's.
            let served = try settings.servedApps(logger: logger)
            let verifier = served.verifier
            let intake = try IntakeConfiguration(environment: env, apps: settings.apps)
            let notifier = try NotifierSettings(environment: env, apps: settings.apps, generateMissingSecret: true)
            var configuration = LocalPipeline.Configuration(
                amqp: settings.amqp, topology: settings.topology, catalog: served.catalog,
                intake: intake, stores: verifier.stores,
                validator: .init(concurrency: concurrency, shutdownGrace: settings.operations.shutdownGrace),
                notifier: notifier.configuration())
            configuration.apps = served.apps
            configuration.caFile = verifier.caFile
            configuration.fulfillment = try FulfillerCommand.stage(settings)
            configuration.fulfillment.elected = false
            configuration.console = try ConsoleConfiguration(environment: env)
            configuration.console?.apps = settings.appDirectory
            configuration.console?.catalogs = try settings.consoleCatalogs()
            configuration.metrics = MetricsBootstrap.prometheus()
            configuration.metricsToken = settings.operations.metricsToken
            PipelineMetrics.useApps(settings.appDirectory.ids)
            PipelineMetrics.prepare([.intake, .validator, .fulfiller, .notifier])
            // Opened once every setting has been read: a malformed one creates nothing.
            let database = try await settings.openDatabase()
            let pipeline = try LocalPipeline(configuration: configuration, database: database, logger: logger)

            let api = "http://\(intake.host):\(intake.port)"
            // Each store as it is set up, and where it takes its notifications.
            let stores = configuration.stores.configured.keys.sorted().map { id in
                let store = configuration.stores.configured[id]!
                let route =
                    store.takesNotifications ? "\n                 notifications: \(api)/v1/\(id)/notifications" : ""
                return "\(id): \(store.summary)\(route)"
            }
            var text = banner(
                intake: intake, notifier: notifier, stores: stores,
                database: settings.databasePath,
                console: consoleBanner(
                    api: "http://\(intake.host):\(intake.port)", enabled: configuration.console?.isEnabled ?? false))
            if notifier.isEnabled, notifier.secretWasGenerated {
                text +=
                    "  webhook secret (generated for this run; set IAP_WEBHOOK_SECRET to keep one): \(notifier.secret.encoded)\n\n"
            }
            // Unbuffered, so that it shows before the logs even when stdout is a pipe.
            FileHandle.standardOutput.write(Data(text.utf8))
            try await runServices(pipeline.services, settings: settings, label: "up")
        }

        private func consoleBanner(api: String, enabled: Bool) -> String {
            guard enabled else { return "off (set IAP_CONSOLE_OPERATORS=name:secret)" }
            return "\(api)/console   operators: from IAP_CONSOLE_OPERATORS"
        }

        private func banner(
            intake: IntakeConfiguration, notifier: NotifierSettings, stores: [String], database: String, console: String
        ) -> String {
            let api = "http://\(intake.host):\(intake.port)"
            return """
                iap up: the whole pipeline in one process (Ctrl-C stops it gracefully)
                  intake       \(api)   token: from IAP_API_TOKENS / IAP_API_TOKENS_FILE
                  stores       \(stores.joined(separator: "\n               "))
                  webhooks     \(notifier.webhookURL ?? "off (set IAP_WEBHOOK_URL)")
                  database     \(database)
                  console      \(console)   dead letters: iap dlq list

                """
        }
    }
}
