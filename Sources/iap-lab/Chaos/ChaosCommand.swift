import ArgumentParser
import Broker
import Drills
import Foundation
import HTTPClient
import IAPCommands
import StubStore
import Synchronization

extension Lab {
    /// Every fault at once against the real pipeline, then the promises checked.
    struct Chaos: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run the pipeline as separate processes under faults, then check that nothing was lost or doubled.",
            discussion: """
                Starts `iap-lab stub-store`, `iap intake`, 2 `iap validator`, `iap fulfiller` and `iap notifier` on a fresh
                database and queue prefix (the broker of IAP_AMQP_URL) and posts a seeded mix of receipts as a
                backend would, retrying with the same Idempotency-Key on a connection error or a 5xx. Meanwhile it
                SIGKILLs a random stage every --kill-interval seconds and restarts it, stops and starts RabbitMQ's app
                once (rabbitmqctl, on --rabbitmq-node), takes the verify endpoint away for --outage-seconds, and
                answers 503 to --webhook-failure-rate of the webhooks. Once quiet it checks that every accepted
                receipt is final with the status its kind calls for, that the books balance (`iap audit`) with the
                balances the receipts grant, that every final receipt's webhook was taken, and that no queue holds
                anything. Exits 1 naming each violation. Stops RabbitMQ's app: never point it at a shared broker.

                --cluster runs each stage in a network namespace of its own (needs root) and adds the faults of a
                cluster: the fulfiller cut off for --partition-seconds, the notifier partitioned from the webhook
                receiver for --webhook-partition-seconds, and, when IAP_AMQP_URL and --database-url name the clusters
                of scripts/cluster-rabbitmq.sh and scripts/cluster-postgres.sh, a broker node SIGKILLed and restarted,
                another's app stopped and started, and the PostgreSQL primary stopped hard and its standby promoted.

                --power puts the SQLite database on a volume that drops unsynced writes at a cut (powercut-fs, needs
                root) and, every --cut-interval seconds, SIGKILLs every stage at once, drops what was not synced and
                starts everything again, --cuts times at least, in place of the single kills; --power --postgres does
                the same to a PostgreSQL server of its own with its data directory on the volume. --soak MINUTES runs
                --soak-rate receipts a second for that long with a SIGKILL a minute and a power cut every ten, and
                samples each process's memory and descriptors, the queues and the database's size per receipt.
                See docs/chaos.md.
                """)

        @Option(help: "Receipts to submit.") var receipts = 500
        @Option(help: "Seed of every random choice: the mix, the kills, the refused webhooks.") var seed: UInt64 = 1
        @Option(help: "Seconds the submissions are spread over.") var loadSeconds = 30.0
        @Option(help: "Accounts the receipts are spread over.") var accounts = 50
        @Option(help: "Requests in flight at most.") var clients = 32
        @Option(help: "Seconds between kills: 'MIN-MAX' or one number.") var killInterval = "1-2"
        @Option(help: "Kills at least, however quick the load.") var minimumKills = 20
        @Option(help: "Seconds the verify endpoint stays away.") var outageSeconds = 20.0
        @Option(help: "Seconds RabbitMQ's app stays stopped.") var brokerDownSeconds = 5.0
        @Option(help: "Share (0...1) of webhook deliveries answered 503 (at most twice per webhook).")
        var webhookFailureRate = 0.2
        @Option(help: "rabbitmqctl's node (-n), e.g. chaos@localhost; default the local node.") var rabbitmqNode:
            String?
        @Option(help: "Run the stages on this empty PostgreSQL database (it is migrated first) instead of SQLite.")
        var databaseURL: String?
        @Option(help: "Seconds to wait for quiescence after the faults.") var settleTimeout = 300
        @Option(help: "Keep the database, the logs and the receiver's log in this directory.") var keep: String?
        @OptionGroup var cluster: ChaosClusterOptions
        @OptionGroup var powerCuts: ChaosPowerOptions
        @OptionGroup var soaking: ChaosSoakOptions

        var interval: ClosedRange<Double>? { secondsRange(killInterval) }

        func validate() throws {
            guard receipts > 0, accounts > 0, clients > 0, loadSeconds > 0, settleTimeout > 0 else {
                throw ValidationError(
                    "--receipts, --accounts, --clients, --load-seconds and --settle-timeout must be positive")
            }
            guard interval != nil else {
                throw ValidationError("--kill-interval must be 'MIN-MAX' seconds, 0 < MIN <= MAX")
            }
            guard minimumKills >= 0, outageSeconds >= 0, brokerDownSeconds >= 0 else {
                throw ValidationError(
                    "--minimum-kills, --outage-seconds and --broker-down-seconds must not be negative")
            }
            guard (0...1).contains(webhookFailureRate) else {
                throw ValidationError("--webhook-failure-rate must be within 0...1")
            }
            if soaking.soak != nil, !powerCuts.power { throw ValidationError("--soak goes with --power") }
            if powerCuts.power, cluster.cluster { throw ValidationError("--power and --cluster are separate runs") }
        }

        mutating func run() async throws {
            if let minutes = soaking.soak {
                loadSeconds = Double(minutes) * 60
                receipts = Int(soaking.soakRate * loadSeconds)
            }
            let settings = try PipelineSettings()
            let amqpURL = settings.environment.string("IAP_AMQP_URL", default: AMQPConfiguration.defaultURL)
            let clusterFaults =
                cluster.cluster
                ? try ChaosClusterFaults(options: cluster, amqpURL: amqpURL, databaseURL: databaseURL) : nil
            let directory = keep ?? NSTemporaryDirectory() + "iap-chaos-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let receiverLog = directory + "/webhooks.log"
            _ = FileManager.default.createFile(atPath: receiverLog, contents: nil)
            let power = try await ChaosPower.start(powerCuts, directory: directory, databaseURL: databaseURL)
            let databaseURL = power?.databaseURL ?? self.databaseURL
            let hosts = cluster.cluster ? try await ChaosCluster.start(amqpURL: amqpURL, databaseURL: databaseURL) : nil
            let network = hosts?.network ?? .loopback
            // A webhook the partition failed already twice is refused at most once more: a fourth
            // failure would put its next attempt 10 minutes away, past the settle timeout.
            let webhooks = WebhookCounter(
                failureRate: webhookFailureRate, maxFailuresPerID: cluster.cluster ? 1 : 2, seed: seed,
                log: FileHandle(forWritingAtPath: receiverLog), host: network.hostAddress)
            let receiver = Task { try await webhooks.run() }
            defer { receiver.cancel() }
            let webhookPort = try await webhooks.port()
            let stubPort = StageProcesses.freePort()
            let pipeline = StagesPipeline(
                label: "chaos", directory: directory, databaseURL: databaseURL,
                webhookURL: "http://\(network.hostAddress):\(webhookPort)/webhooks", settings: settings,
                extra: (power?.settings ?? [:]).merging(
                    try StagesPipeline.stateStoreSettings(stubURL: "http://\(network.hostAddress):\(stubPort)")
                ) { $1 }, stubPort: stubPort, network: network)
            let stages = pipeline.processes()
            let partitions = NetworkFaults()
            var plan = self.plan
            let answered = AnsweredLog()
            if let clusterFaults {
                if clusterFaults.broker != nil { plan.brokerStop = nil }
                plan.chains = clusterFaults.chains(
                    options: cluster, loadSeconds: loadSeconds, brokerDownSeconds: brokerDownSeconds,
                    network: partitions, webhookPort: webhookPort)
            }
            if let power, let interval = powerCuts.interval {
                plan.powerCut = { try await power.cut() }
                plan.powerOff = { power.powerOff() }
                plan.rabbitmqctl = { try await power.broker.rabbitmqctl($0) }
                plan.cutCheck = ChaosCutCheck(
                    answered: answered, receiptsURL: pipeline.receiptsURL, token: pipeline.token,
                    environment: pipeline.environment)
                (plan.cuts, plan.interval) = (powerCuts.cuts, interval)
                if let soak = soaking.schedule { (plan.cuts, plan.interval, plan.cutInterval) = soak }
            }
            let monkey = ChaosMonkey(stages: stages, plan: plan, seed: seed)
            let sampler = SoakSampler()
            let topology = PipelineTopology(prefix: pipeline.prefix)
            let brokerControl =
                power.map { .own($0.broker) } ?? clusterFaults?.brokerControl(rabbitmqNode: rabbitmqNode)
                ?? .local(node: rabbitmqNode)
            let sampling = Task { [sampleSeconds = soaking.sampleSeconds, soak = soaking.soak, loadSeconds] in
                guard soak != nil, let power else { return }
                await sampler.run(
                    every: sampleSeconds, for: loadSeconds, stages: stages, power: power, webhooks: webhooks
                ) {
                    try await ChaosBooks.queueDepths(topology: topology, broker: brokerControl)
                }
            }
            let started = ContinuousClock.now
            // Ctrl-C or SIGTERM (an hour's soak given up) ends the attack, not the process: the
            // stages, servers and volumes below are still stopped and unmounted.
            var outcome = await Interruption.cancellable { [self] in
                try await attack(
                    pipeline, stages, monkey, webhooks: webhooks, settings: settings, broker: brokerControl,
                    power: power, answered: answered)
            }
            if case .failure = outcome { await monkey.recover() }
            sampling.cancel()
            await sampling.value
            // No partition outlives the run, whatever happened to it.
            let unhealed = await partitions.healAll()
            await stages.stop()
            await hosts?.stop()
            await power?.stop()
            // The run's own node goes with its volume.
            if power == nil {
                await ReceiptLoad.deleteTopology(
                    PipelineTopology(prefix: pipeline.prefix).topology, amqp: settings.amqp)
            }
            if !unhealed.isEmpty, case .success = outcome {
                outcome = .failure(ValidationError("could not heal: " + unhealed.joined(separator: "; ")))
            }
            var report = try outcome.get()
            report.skippedFaults = clusterFaults?.skipped ?? []
            report.powerCuts = monkey.powerCuts
            if soaking.soak != nil {
                let summary = SoakSummary(samples: sampler.taken)
                report.soak = summary.lines
                try summary.csv.write(toFile: directory + "/soak.csv", atomically: true, encoding: .utf8)
                if keep != nil { report.soak.append("every sample: \(directory)/soak.csv") }
            }
            report.seconds = (ContinuousClock.now - started).seconds
            if keep == nil { try? FileManager.default.removeItem(atPath: directory) }
            report.printText()
            if !report.violations.isEmpty || report.stuck != nil { throw ExitCode(1) }
        }

        private var plan: ChaosMonkey.Plan {
            ChaosMonkey.Plan(
                targets: ["intake", "validator-1", "validator-2", "fulfiller", "notifier"], interval: interval!,
                minimumKills: minimumKills, brokerStop: loadSeconds * 0.25, brokerDown: brokerDownSeconds,
                rabbitmqNode: rabbitmqNode, outageStart: loadSeconds * 0.45, outage: outageSeconds)
        }

        /// Starts the stages, loads them under faults, waits for quiet and judges.
        private func attack(
            _ pipeline: StagesPipeline, _ stages: StageProcesses, _ monkey: ChaosMonkey, webhooks: WebhookCounter,
            settings: PipelineSettings, broker: BrokerControl, power: ChaosPower?, answered: AnsweredLog
        ) async throws -> ChaosReport {
            try await pipeline.prepareDatabase(settings: settings)
            let load = ChaosLoad(
                count: receipts, accounts: accounts, seed: seed,
                minter: StubAppStore(configuration: .init(bundleID: pipeline.bundleID)), bundleID: pipeline.bundleID)
            // Xiaomi's orders and Amazon's receipts, held by the stub however often it is killed.
            let orders = pipeline.directory + "/stub-orders.jsonl"
            try load.stubOrders.joined(separator: "\n").write(toFile: orders, atomically: true, encoding: .utf8)
            try pipeline.startStubStore(stages, arguments: ["--orders", orders])
            try pipeline.startIntake(stages)
            try pipeline.startSettling(stages)
            for index in 1...2 { try pipeline.startValidator(stages, index: index, concurrency: 64) }
            let client = try CurlHTTPClient()
            let ready = await Result { try await stages.waitUntilReady(client: client, timeout: .seconds(120)) }
            await client.shutdown()
            try ready.get()
            try await power?.queuesDeclared()

            let loadDone = Atomic<Bool>(false)
            let posting = Task {
                defer { loadDone.store(true, ordering: .relaxed) }
                return try await load.post(
                    to: pipeline.receiptsURL, token: pipeline.token, rate: Double(receipts) / loadSeconds,
                    clients: clients, patience: .seconds(300), answered: answered)
            }
            let faults = await Result { try await monkey.run { loadDone.load(ordering: .relaxed) } }
            if case .failure(let error) = faults {
                // The fault that broke the run is the news, not the load it cut short.
                posting.cancel()
                _ = await posting.result
                throw error
            }
            let submitted = try await posting.value
            let chaosSeconds = (ContinuousClock.now - monkey.started).seconds

            // The judge reads every receipt at once: after an hour's soak (720,000) that is
            // long work, not a stage's statement (whose 20 s bound ended the first soak's judging).
            let database = try await pipeline.stageSettings().openDatabase(longWork: true)
            let books = ChaosBooks(
                database: database, topology: PipelineTopology(prefix: pipeline.prefix), broker: broker)
            let settleStart = ContinuousClock.now
            let stuck = try await books.waitUntilQuiet(
                receiptIDs: Set(submitted.submissions.compactMap(\.receiptID)), timeout: .seconds(settleTimeout))
            let tally = webhooks.snapshot
            let seen = try await books.observe(delivered: Set(tally.deliveries.keys))
            return ChaosReport(
                receipts: receipts, seed: seed, load: submitted, kills: monkey.kills,
                unexpectedExits: monkey.unexpectedExits, events: monkey.events, faults: monkey.faults,
                brokerRestarted: monkey.brokerRestarted, outageSeconds: monkey.outageServed ? outageSeconds : 0,
                webhooksRefused: tally.refused, webhooksDelivered: tally.deliveries.values.reduce(0, +),
                webhooksRepeated: tally.deliveries.values.reduce(0) { $0 + max($1 - 1, 0) },
                waits: try await books.waits(),
                chaosSeconds: chaosSeconds, settleSeconds: (ContinuousClock.now - settleStart).seconds,
                stuck: stuck, statuses: ChaosReport.count(seen, submitted.submissions),
                violations: ChaosJudge.violations(submitted.submissions, seen)
                    + monkey.crashes.map { ChaosViolation(.crash, $0) } + monkey.cutViolations)
        }
    }
}
