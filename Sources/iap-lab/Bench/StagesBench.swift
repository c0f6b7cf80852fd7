import AppStore
import ArgumentParser
import Broker
import Database
import DatabaseSQLite
import Drills
import Foundation
import HTTPClient
import IAPCommands
import Notifier
import Repositories
import SettlementWriter
import StubStore

extension Lab.Bench {
    /// The pipeline as production runs it: every stage its own process, the verify endpoint
    /// out of process, and this process as the load generator and the webhook receiver.
    struct StagesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stages",
            abstract: "Receipts per second, latency, CPU and memory with every stage its own process.",
            discussion: """
                Starts `iap-lab stub-store`, `iap intake`, N `iap validator`, `iap fulfiller` and `iap notifier` (or, with
                --up, one `iap up` in their place) on a fresh database and queue prefix (the broker of IAP_AMQP_URL), posts receipts to the intake and
                takes the webhooks itself. On PostgreSQL (--database-url), --replicas runs several intakes (the load
                spread across them), fulfillers and notifiers, and the report adds PostgreSQL's CPU and the
                statements pg_stat_statements counted. --cpu-limit caps every stage process at a share of a core,
                each in a cgroup of its own. Count mode (--receipts) posts as fast as the intake accepts;
                rate mode (--rate with --seconds) posts on a fixed schedule, for latency below saturation.
                CPU and memory are read from /proc for each process, RabbitMQ's included. Exits 1 when the
                books are wrong: a receipt not credited, an audit finding, a wrong balance, a webhook
                missing or sent twice.
                """)

        @Option(help: "Receipts to post (count mode).") var receipts = 10_000
        @Option(help: "HTTP connections in count mode.") var clients = 64
        @Option(help: "Receipts per second (rate mode, with --seconds).") var rate: Double?
        @Option(help: "Seconds to post for in rate mode.") var seconds = 10.0
        @Option(help: "Validator processes.") var validators = 1
        @Option(help: "Verify requests in flight per validator.") var concurrency = 256
        @Option(help: "Milliseconds the stub store waits before each answer.") var stubLatencyMs = 0
        @Option(help: "Share of verify requests (0...0.5) the stub store answers 503.") var stubErrorRate = 0.0
        @Option(help: "Accounts the receipts are spread over (in each app, with --apps).") var accounts = 1_000
        @Option(
            help: "Receipts credited in the database before the load, over the same accounts (a year of history).")
        var history = 0
        @Option(
            help:
                "Spread the receipts over this many apps of an apps file (IAP_APPS), each with its own bundle id, token and webhook secret; 0: the single-app settings."
        )
        var apps = 0
        @Option(help: "Seconds to wait for the last webhook.") var timeout = 600
        @Option(help: "Keep the database and logs in this directory (default: a temporary one, removed).")
        var workDirectory: String?
        @Flag(
            help:
                "Measure one validator alone: fill the validate queue first, then time one validator draining it (--validators is ignored)."
        )
        var validatorAlone = false
        @Option(
            help:
                "How validators verify receipts: apple (the stub's verifyReceipt), local or local-then-apple (PKCS #7 receipts checked in the validator)."
        )
        var verification = ReceiptVerificationMode.apple
        @Flag(
            help:
                "Post PKCS #7 receipts as Apple's devices do (about 4.6 KB each; Apple's own are 5-10 KB) instead of the stub store's 0.5 KB ones; --verification apple has the stub store read them."
        )
        var pkcs7Receipts = false
        @Option(help: "Run the stages on this empty PostgreSQL database (it is migrated first) instead of SQLite.")
        var databaseURL: String?
        @Option(help: "Intake, fulfiller and notifier processes of each (more than 1 needs --database-url).")
        var replicas = 1
        @Option(
            help:
                "Cap each stage process at this share of a core, in a cgroup of its own (cgroup v1 or v2; needs root). The stub store, broker and PostgreSQL stay uncapped."
        )
        var cpuLimit: Double?
        @Flag(
            help:
                "Verify over TLS with HTTP/2, as Apple serves verifyReceipt: Debian's nginx in front of the stub store."
        )
        var http2 = false
        @Flag(
            help:
                "Run every stage in one `iap up` process (against the same stub store) instead of a process each, to compare the two."
        )
        var up = false
        @Flag(help: "Print the report as JSON.") var json = false

        func validate() throws {
            guard receipts > 0, clients > 0, validators > 0, accounts > 0, timeout > 0 else {
                throw ValidationError("--receipts, --clients, --validators, --accounts and --timeout must be positive")
            }
            guard (0...100).contains(apps) else { throw ValidationError("--apps must be 0...100") }
            guard (1...10_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1...10000") }
            if let rate, !(rate > 0 && seconds > 0) { throw ValidationError("--rate and --seconds must be positive") }
            guard (1...8).contains(replicas), replicas == 1 || databaseURL != nil else {
                throw ValidationError("--replicas must be 1...8, and above 1 only with --database-url (PostgreSQL)")
            }
            if let cpuLimit, !(cpuLimit >= 0.01 && cpuLimit <= Double(ProcessInfo.processInfo.activeProcessorCount)) {
                throw ValidationError(
                    "--cpu-limit must be within 0.01...\(ProcessInfo.processInfo.activeProcessorCount) (cores of this machine)"
                )
            }
            guard history >= 0, history == 0 || apps == 0 else {
                throw ValidationError("--history must not be negative, and takes no --apps")
            }
            if up, validators != 1 || replicas != 1 || validatorAlone || cpuLimit != nil {
                throw ValidationError(
                    "--up runs one process: it takes no --validators, --replicas, --validator-alone or --cpu-limit")
            }
            guard stubLatencyMs >= 0, (0...0.5).contains(stubErrorRate) else {
                throw ValidationError(
                    "--stub-latency-ms must not be negative, --stub-error-rate must be within 0...0.5")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            // Checked first: no stage starts when the cap cannot be had.
            let cap = try cpuLimit.map { cores throws(CPUCapError) in try CPUCap(cores: cores) }
            let directory = workDirectory ?? NSTemporaryDirectory() + "iap-stages-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let webhooks = WebhookCounter()
            let receiver = Task { try await webhooks.run() }
            defer { receiver.cancel() }
            // The load's receipts come from this minter; local verification, and the stub store
            // reading PKCS #7 receipts, trust its receipt root.
            let minter = StubAppStore(configuration: StubStoreConfiguration(bundleID: "com.example.game"))
            var receiptSettings = ["IAP_RECEIPT_VERIFICATION": verification.rawValue]
            let receiptRoot = pkcs7Receipts || verification != .apple ? directory + "/receipt-root.der" : nil
            if let receiptRoot {
                try Data(minter.receiptAuthority.rootDER).write(to: URL(fileURLWithPath: receiptRoot))
                if verification != .apple { receiptSettings["IAP_RECEIPT_ROOT_CA"] = receiptRoot }
            }
            let stubPort = StageProcesses.freePort()
            let proxy = try http2 ? NginxTLSProxy(upstreamPort: stubPort) : nil
            defer { proxy?.stop() }
            if let proxy {
                receiptSettings["IAP_VERIFY_URL"] = proxy.url + "/verifyReceipt"
                receiptSettings["IAP_VERIFY_SANDBOX_URL"] = proxy.url + "/sandbox/verifyReceipt"
                receiptSettings["IAP_VERIFY_CA_FILE"] = proxy.certificateFile
            }
            let webhookURL = "http://127.0.0.1:\(try await webhooks.port())/webhooks"
            let benchApps = apps > 0 ? BenchApps(count: apps, bundleID: StagesPipeline.bundleID) : nil
            if let benchApps {
                receiptSettings["IAP_APPS"] = directory + "/apps.yaml"
                try benchApps.write(to: directory + "/apps.yaml", webhookURL: webhookURL)
            }
            let pipeline = StagesPipeline(
                label: "stages", directory: directory, databaseURL: databaseURL, webhookURL: webhookURL,
                settings: settings, extra: receiptSettings, stubPort: stubPort, intakes: replicas)
            let stages = pipeline.processes(cap: cap)
            let client = try CurlHTTPClient()
            // Ctrl-C or SIGTERM ends the measuring only: the stages still stop and the cgroups go.
            let measured = await Interruption.cancellable {
                try await pipeline.prepareDatabase(settings: settings)
                if history > 0 {
                    let stage = try pipeline.stageSettings()
                    let seconds = try await BenchHistory(count: history, accounts: accounts).write(
                        into: try await stage.openDatabase(longWork: true),
                        catalog: try stage.catalog(logger: stage.logger("bench")))
                    FileHandle.standardError.write(
                        Data(
                            "history: \(history) receipts credited before the load, written in \(Int(seconds)) s\n".utf8
                        ))
                }
                try await start(stages, pipeline, receiptRoot: receiptRoot)
                try await stages.waitUntilReady(client: client, timeout: .seconds(120))
                return try await measure(
                    stages, pipeline, minter: minter, apps: benchApps, client: client, webhooks: webhooks,
                    settings: settings, proxy: proxy)
            }
            await stages.stop()
            await client.shutdown()
            await ReceiptLoad.deleteTopology(PipelineTopology(prefix: pipeline.prefix).topology, amqp: settings.amqp)
            if case .failure(let error as Interruption.Interrupted) = measured {
                FileHandle.standardError.write(Data("bench: \(error); the stages were stopped\n".utf8))
                throw ExitCode(128 + error.signal)
            }
            let report = try measured.get()
            if workDirectory == nil { try? FileManager.default.removeItem(atPath: directory) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                report.printText()
            }
            if !report.books.isRight { throw ExitCode(1) }
        }

        private func start(_ stages: StageProcesses, _ pipeline: StagesPipeline, receiptRoot: String?) async throws {
            try pipeline.startStubStore(
                stages,
                arguments: ["--latency-ms", "\(stubLatencyMs)", "--error-rate", "\(stubErrorRate)"]
                    + (receiptRoot.map { ["--receipt-root", $0] } ?? []))
            if up {
                try pipeline.startUp(stages, concurrency: concurrency)
                return
            }
            try pipeline.startIntakes(stages)
            // Alone, the validator and the stages after it start once the queue is full.
            guard !validatorAlone else { return }
            try pipeline.startSettling(stages, replicas: replicas)
            for index in 1...validators {
                try pipeline.startValidator(stages, index: index, concurrency: concurrency)
            }
        }
    }
}

extension ReceiptVerificationMode: ExpressibleByArgument {}
