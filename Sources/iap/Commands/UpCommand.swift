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
import StubStore
import Validator

extension IAP {
    /// Every stage in one process, with the stub store as the verify endpoint unless
    /// `IAP_VERIFY_URL` names another: the local and demo way to run the pipeline.
    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run intake, validator, fulfiller and notifier in one process (with an embedded stub store).")

        static let developmentToken = "dev-token-change-me-0001"
        /// The console's operator when `IAP_CONSOLE_OPERATORS` is unset, like the token: local use
        /// only. It may grant and take back, as a developer trying the support desk expects.
        static let developmentOperator = (name: "admin", secret: "dev-console-change-me")

        @Option(help: "Port of the embedded stub store (used when IAP_VERIFY_URL is unset).") var stubPort = 8090
        @Option(help: "Verify requests in flight at once.") var concurrency = 256

        func validate() throws {
            guard (1...65_535).contains(stubPort) else { throw ValidationError("--stub-port must be 1...65535") }
            guard (1...10_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1...10000") }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            LogSetup.bootstrap(level: settings.logLevel)
            let logger = settings.logger("up")
            let env = settings.environment
            let embedsStub = env.optional("IAP_VERIFY_URL") == nil
            let stubURL = "http://127.0.0.1:\(stubPort)"
            let bundleID = env.string("IAP_BUNDLE_ID", default: "com.example.game")
            let sharedSecret = env.optional("IAP_SHARED_SECRET")
            let stub =
                embedsStub
                ? StubAppStore(configuration: StubStoreConfiguration(bundleID: bundleID, sharedSecret: sharedSecret))
                : nil
            // Local receipt checks trust the stub's receipt root, made (RSA keys) only when asked for.
            var receiptRoot: (@Sendable () -> [UInt8])?
            if let stub { receiptRoot = { stub.receiptAuthority.rootDER } }
            // With the embedded stub, StoreKit 2 data is the stub's, signed for Sandbox under its own CA.
            var apple = AppleSetup.Defaults()
            apple.verifyURLs = ("\(stubURL)/verifyReceipt", "\(stubURL)/sandbox/verifyReceipt")
            apple.appStoreEnvironment = embedsStub ? .sandbox : .production
            apple.signedDataRoot = stub?.storeKit.rootDER
            apple.receiptRoot = receiptRoot
            // With IAP_APPS, the default app's stores and catalog, and every other app's.
            let served = try settings.servedApps(apple: apple, logger: logger)
            let verifier = served.verifier
            let intake = try IntakeConfiguration(environment: env, defaultTokens: [Self.developmentToken])
            let notifier = try NotifierSettings(environment: env, generateMissingSecret: true)
            var configuration = LocalPipeline.Configuration(
                amqp: settings.amqp, topology: settings.topology, catalog: served.catalog,
                intake: intake, verifier: verifier.apple.verifyReceipt,
                validator: .init(concurrency: concurrency, shutdownGrace: settings.operations.shutdownGrace),
                notifier: notifier.configuration())
            configuration.apple = verifier.apple
            configuration.apps = served.apps
            configuration.stores = try stub.map { try Self.stores(env, stub: $0, url: stubURL) } ?? verifier.stores
            let realGoogle = configuration.stores.configured[GooglePlayStore.id] as? GooglePlayStore
            if let stub, realGoogle?.setup == nil || realGoogle?.push == nil {
                // Google Play too: the stub's service account and API, and its pushes as the stub
                // signs them (`POST /stub/google/notifications`), unless real ones are set.
                configuration.stores = configuration.stores.with(
                    GooglePlayStore(
                        setup: try realGoogle?.setup
                            ?? GooglePlaySetup(
                                account: try GoogleServiceAccount(
                                    json: stub.googlePlay.serviceAccountJSON(baseURL: stubURL)),
                                apiURL: stubURL + "/google"),
                        push: realGoogle?.push
                            ?? .init(
                                audience: "http://\(intake.host):\(intake.port)/v1/google/notifications",
                                serviceAccountEmail: StubGooglePlay.pushServiceAccount,
                                certsURL: stubURL + StubGooglePlay.certsPath),
                        jobs: realGoogle?.jobs ?? .init()))
            }
            let google = configuration.stores.configured[GooglePlayStore.id] as? GooglePlayStore
            configuration.caFile = verifier.caFile
            configuration.fulfillment = try FulfillerCommand.stage(
                settings, reconcile: ReconcileSettings(environment: env, verifier: verifier))
            configuration.fulfillment.elected = false
            let developmentConsole = env.optional("IAP_CONSOLE_OPERATORS") == nil
            configuration.console =
                developmentConsole
                ? try ConsoleConfiguration(
                    operators: [Self.developmentOperator], roles: [Self.developmentOperator.name: [.adjust]],
                    secureCookie: try ConsoleConfiguration.secureCookie(environment: env))
                : try ConsoleConfiguration(environment: env)
            configuration.console?.apps = settings.appDirectory
            configuration.console?.catalogs = try settings.consoleCatalogs()
            configuration.metrics = MetricsBootstrap.prometheus()
            configuration.metricsToken = settings.operations.metricsToken
            PipelineMetrics.useApps(settings.appDirectory.ids)
            PipelineMetrics.prepare([.intake, .validator, .fulfiller, .notifier])
            // Opened once every setting has been read: a malformed one creates nothing.
            let database = try await settings.openDatabase()
            let pipeline = try LocalPipeline(configuration: configuration, database: database, logger: logger)

            var services: [any Service] = []
            if let stub {
                services.append(makeStubStoreApplication(store: stub, port: stubPort))
            }
            services += pipeline.services
            let googleBanner =
                configuration.googlePlay.map { play in
                    let pushes =
                        google?.push == nil
                        ? "off (set IAP_GOOGLE_PUSH_AUDIENCE)"
                        : "http://\(intake.host):\(intake.port)/v1/google/notifications (docs/google.md)"
                    return (verifier.googlePlay == nil ? "the embedded stub's API" : play.apiURL)
                        + "   pushes: \(pushes)"
                } ?? "off (set IAP_GOOGLE_SERVICE_ACCOUNT)"
            var text = banner(
                intake: intake, embedsStub: embedsStub, stubURL: stubURL, verifier: verifier, notifier: notifier,
                google: googleBanner,
                stores: configuration.stores.configured.keys.sorted().map {
                    "\($0): http://\(intake.host):\(intake.port)/v1/\($0)/notifications"
                }.joined(separator: "   "),
                database: settings.databasePath,
                console: consoleBanner(
                    api: "http://\(intake.host):\(intake.port)", enabled: configuration.console?.isEnabled ?? false,
                    development: developmentConsole))
            if notifier.isEnabled, notifier.secretWasGenerated {
                text +=
                    "  webhook secret (generated for this run; set IAP_WEBHOOK_SECRET to keep one): \(notifier.secret.encoded)\n\n"
            }
            // Unbuffered, so that it shows before the logs even when stdout is a pipe.
            FileHandle.standardOutput.write(Data(text.utf8))
            try await runServices(services, settings: settings, label: "up")
        }

        /// The plug-in stores: each as its own variables configure it, or, when they are unset,
        /// against the embedded stub (Stripe's events then signed with a secret made for the run).
        static func stores(_ env: EnvironmentReader, stub: StubAppStore, url: String) throws(SettingError)
            -> StoreRegistry
        {
            let secret = "whsec_" + (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            var values = env.values
            for settings in stub.pluginStoreSettings(baseURL: url, stripeWebhookSecrets: [secret]).values
            where !settings.keys.contains(where: { env.optional($0) != nil }) {
                values.merge(settings) { mine, _ in mine }
            }
            return try PluginStores.configured(EnvironmentReader(values))
        }

        private func consoleBanner(api: String, enabled: Bool, development: Bool) -> String {
            guard enabled else { return "off (set IAP_CONSOLE_OPERATORS=name:secret)" }
            guard development else { return "\(api)/console   operators: from IAP_CONSOLE_OPERATORS" }
            // The name only: no command prints a secret (the README names the development one).
            return "\(api)/console   login: \(Self.developmentOperator.name) with the development secret (see README)"
        }

        private func banner(
            intake: IntakeConfiguration, embedsStub: Bool, stubURL: String, verifier: VerifierSettings,
            notifier: NotifierSettings, google: String, stores: String, database: String, console: String
        ) -> String {
            let api = "http://\(intake.host):\(intake.port)"
            // Never the token itself: terminals are recorded, logs collected, screens shared.
            let tokenSource =
                intake.apiTokens == [Self.developmentToken]
                ? "the development default (see README)" : "from IAP_API_TOKENS / IAP_API_TOKENS_FILE"
            return """
                iap up: the whole pipeline in one process (Ctrl-C stops it gracefully)
                  intake       \(api)   token: \(tokenSource)
                  verify       \(embedsStub ? "embedded stub store at \(stubURL)" : verifier.apple.verifyReceipt.productionURL)  bundle: \(verifier.apple.verifyReceipt.bundleID)  receipts: \(verifier.apple.receiptVerification.rawValue)
                  google play  \(google)
                  stores       \(stores.isEmpty ? "none plugged in" : stores)   (docs/huawei.md, docs/stripe.md)
                  webhooks     \(notifier.webhookURL ?? "off (set IAP_WEBHOOK_URL)")
                  database     \(database)
                  console      \(console)   dead letters: iap dlq list

                Try it (with one of your API tokens in $TOKEN):
                  receipt=$(curl -s \(stubURL)/stub/receipts -d '{"bundle_id": "\(verifier.apple.verifyReceipt.bundleID)", \(verifier.apple.receiptVerification == .apple ? "" : "\"format\": \"pkcs7\", ")"transactions": [{"product_id": "com.example.coins100"}]}' | sed 's/.*"receipt_data":"\\([^"]*\\)".*/\\1/')
                  curl -s \(api)/v1/receipts -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "{\\"account_id\\": \\"player-1\\", \\"receipt_data\\": \\"$receipt\\"}"
                  curl -s \(api)/v1/accounts/player-1 -H "Authorization: Bearer $TOKEN"

                """
        }
    }
}
