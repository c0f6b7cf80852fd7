import AppStore
import ArgumentParser
import Foundation
import Logging
import PipelineCore
import ServiceLifecycle
import StubStore

extension Lab {
    /// `iap-lab stub-store`: every store's stub (Apple's `verifyReceipt`, StoreKit 2 and Server
    /// API, Google Play, Huawei, Stripe, Xiaomi, Amazon) for demos, tests and benchmarks, until SIGINT or SIGTERM;
    /// with `--env-file`, the settings that point `iap` at it.
    ///
    /// Named `StubStoreCommand`, not `StubStore`, so it does not shadow the `StubStore` module.
    struct StubStoreCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stub-store",
            abstract: "Serve an Apple-compatible verifyReceipt endpoint that vouches for receipts it minted.",
            discussion: """
                Production:  POST http://HOST:PORT/verifyReceipt          (IAP_VERIFY_URL)
                Sandbox:     POST http://HOST:PORT/sandbox/verifyReceipt  (IAP_VERIFY_SANDBOX_URL)
                Mint:        POST http://HOST:PORT/stub/receipts  {"transactions": [{"product_id": "..."}]}
                             add "format": "pkcs7" for a receipt signed like Apple's (IAP_RECEIPT_VERIFICATION=local)
                Its root:    GET  http://HOST:PORT/stub/receipt-root  (DER, for IAP_RECEIPT_ROOT_CA)
                Stats:       GET  http://HOST:PORT/stub/stats

                The default signing key is a fixed development key published in the source: receipts
                it signs prove nothing outside your machine.
                """
        )

        @Option(help: "Address to bind.") var host = "127.0.0.1"
        @Option(help: "Port to bind (0 for any free port).") var port = 8090
        @Option(help: "Milliseconds every request waits before it is answered.") var latencyMs = 0
        @Option(help: "Share of requests (0...1) answered HTTP 503.") var errorRate = 0.0
        @Option(help: "Share of requests (0...1) that hang past any client timeout.") var timeoutRate = 0.0
        @Option(help: "Seconds a hanging request hangs before it is answered 503.") var hangSeconds = 60
        @Option(help: "Shared secret requests must carry as 'password' (default: IAP_SHARED_SECRET, else any).")
        var sharedSecret: String?
        @Option(help: "Bundle id of minted receipts that name none (default: IAP_BUNDLE_ID, else com.example.game).")
        var bundleID: String?
        @Option(help: "HMAC key receipts are signed with (default: the fixed development key).")
        var signingKey = StubStoreConfiguration.developmentSigningKey
        @Option(help: "Seed for the error and timeout draws, for repeatable runs.") var seed: UInt64?
        @Option(
            help:
                "A DER root certificate (another stub store's /stub/receipt-root) whose PKCS #7 receipts verifyReceipt also reads."
        )
        var receiptRoot: String?
        @Option(
            help: """
                Once listening, write the settings that point `iap` at this stub to this file (NAME='value' \
                lines: `set -a; . FILE; set +a`), its roots and service account beside it: the demo's way.
                """)
        var envFile: String?
        @Option(help: "The intake the settings of --env-file are for (Google's pushes name it).")
        var intakeURL = "http://127.0.0.1:8080"
        @Option(
            help: """
                Xiaomi's orders and Amazon's receipts to hold from the start, one JSON object a line (as \
                the lab writes them): a stub killed and started again holds them again.
                """)
        var orders: String?

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
            guard latencyMs >= 0, hangSeconds > 0 else {
                throw ValidationError("--latency-ms must not be negative, --hang-seconds must be positive")
            }
            guard (0...1).contains(errorRate), (0...1).contains(timeoutRate) else {
                throw ValidationError("--error-rate and --timeout-rate must be within 0...1")
            }
            guard !signingKey.isEmpty else { throw ValidationError("--signing-key must not be empty") }
            if let receiptRoot { _ = try Self.readRoot(receiptRoot) }
        }

        /// The DER root certificate at `path`, or an error that names the file.
        static func readRoot(_ path: String) throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--receipt-root: cannot read \(path)")
            }
            let der = [UInt8](data)
            do {
                _ = try AppReceiptVerifier(configuration: .init(rootCertificates: [der], bundleID: nil))
            } catch {
                throw ValidationError("--receipt-root: \(path) is not a DER X.509 certificate (\(error))")
            }
            return der
        }

        func run() async throws {
            let environment = EnvironmentReader()
            let configuration = StubStoreConfiguration(
                signingKey: signingKey,
                bundleID: bundleID ?? environment.string("IAP_BUNDLE_ID", default: "com.example.game"),
                sharedSecret: sharedSecret ?? environment.optional("IAP_SHARED_SECRET"),
                latency: .milliseconds(latencyMs),
                errorRate: errorRate,
                timeoutRate: timeoutRate,
                hangDuration: .seconds(hangSeconds),
                seed: seed,
                receiptRoots: try receiptRoot.map { [try Self.readRoot($0)] } ?? []
            )
            let (host, envFile, intakeURL) = (self.host, self.envFile, self.intakeURL)
            let logger = Logger(label: "stub-store")
            let stub = StubAppStore(configuration: configuration)
            if let orders {
                guard let text = try? String(contentsOfFile: orders, encoding: .utf8) else {
                    throw ValidationError("--orders: cannot read \(orders)")
                }
                do {
                    let held = try stub.load(orders: text)
                    logger.info("orders held", metadata: ["count": "\(held)"])
                } catch {
                    throw ValidationError("--orders: \(orders): \(error)")
                }
            }
            let app = makeStubStoreApplication(store: stub, host: host, port: port) { port in
                logger.info(
                    "stub store listening",
                    metadata: [
                        "production": "http://\(host):\(port)/verifyReceipt",
                        "sandbox": "http://\(host):\(port)/sandbox/verifyReceipt",
                    ])
                guard let envFile else { return }
                do {
                    // Written to a temporary name and moved: a reader waiting for the file sees it whole.
                    let settings = try stub.pipelineSettings(
                        baseURL: "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)", intakeURL: intakeURL,
                        directory: (envFile as NSString).deletingLastPathComponent)
                    try StubAppStore.shellFile(settings).write(toFile: envFile, atomically: true, encoding: .utf8)
                    logger.info("settings for iap written", metadata: ["file": "\(envFile)"])
                } catch {
                    logger.error("the settings for iap cannot be written", metadata: ["error": "\(error)"])
                }
            }
            var groupConfiguration = ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            // Hanging requests would otherwise hold the shutdown for up to --hang-seconds.
            groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
            try await ServiceGroup(configuration: groupConfiguration).run()
        }
    }
}
