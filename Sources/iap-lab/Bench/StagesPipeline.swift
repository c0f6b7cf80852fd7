import ArgumentParser
import Broker
import Database
import DatabasePostgres
import Drills
import Foundation
import IAPCommands
import Notifier
import PipelineCore
import Repositories
import SettlementWriter
import StubStore

/// The pipeline as operators run it, each stage its own `iap` process, on a queue prefix,
/// a database and ports of its own: what `iap-lab bench stages` measures and `iap-lab chaos` attacks.
struct StagesPipeline: Sendable {
    let prefix: String
    let directory: String
    let stubPort: Int
    /// One port per intake; the first is every stage's `IAP_HTTP_PORT`.
    let intakePorts: [Int]
    var intakePort: Int { intakePorts[0] }
    let token = "bench-token-0123456789"
    static let bundleID = "com.example.game"
    var bundleID: String { Self.bundleID }
    /// PostgreSQL instead of the SQLite file in ``directory``.
    let databaseURL: String?
    /// Every stage's environment.
    let environment: [String: String]
    /// Which stages run in network namespaces, and where the host's services listen for them.
    let network: StageNetwork

    /// - Parameters:
    ///   - label: the queue prefix's middle part (`bench.<label>.<random>`).
    ///   - webhookURL: where the notifier delivers.
    ///   - extra: settings added to (or replacing) the stages' own.
    ///   - stubPort: where the stub store listens.
    ///   - intakes: how many intakes ``startIntakes(_:)`` starts, each on a port of its own.
    ///   - network: stages in namespaces of their own (`iap-lab chaos --cluster`); by default all on loopback.
    init(
        label: String, directory: String, databaseURL: String?, webhookURL: String, settings: PipelineSettings,
        extra: [String: String] = [:], stubPort: Int = StageProcesses.freePort(), intakes: Int = 1,
        network: StageNetwork = .loopback
    ) {
        self.stubPort = stubPort
        self.network = network
        let stubHost = network.hostAddress
        let intakePorts = (0..<intakes).map { _ in StageProcesses.freePort() }
        self.intakePorts = intakePorts
        prefix = "bench.\(label).\(UUID().uuidString.prefix(8).lowercased())"
        self.directory = directory
        self.databaseURL = databaseURL
        environment = [
            "IAP_AMQP_URL": settings.environment.string("IAP_AMQP_URL", default: AMQPConfiguration.defaultURL),
            "IAP_QUEUE_PREFIX": prefix, "IAP_DB_PATH": directory + "/iap.sqlite",
            "IAP_DATABASE_URL": databaseURL ?? "",
            "IAP_HTTP_PORT": "\(intakePorts[0])", "IAP_API_TOKENS": token, "IAP_BUNDLE_ID": Self.bundleID,
            "IAP_VERIFY_URL": "http://\(stubHost):\(stubPort)/verifyReceipt",
            "IAP_VERIFY_SANDBOX_URL": "http://\(stubHost):\(stubPort)/sandbox/verifyReceipt",
            "IAP_WEBHOOK_URL": webhookURL,
            "IAP_WEBHOOK_SECRET": WebhookSecret.generate().encoded,
            "IAP_LOG_LEVEL": settings.environment.string("IAP_LOG_LEVEL", default: "warning"),
            // The benchmark's own: the sample catalog, no shared secret, admin ports of its choosing,
            // and no request limit on its token (the load is the point, not the limiter).
            "IAP_CATALOG": "", "IAP_SHARED_SECRET": "", "IAP_ADMIN_PORT": "", "IAP_RATE_LIMIT": "off",
        ].merging(extra) { $1 }
    }

    /// The settings that turn on the stores whose purchases the stub keeps as state (Xiaomi's
    /// orders, Amazon's receipts) against the stub at `stubURL`: what `iap-lab chaos` deals.
    static func stateStoreSettings(stubURL: String) throws -> [String: String] {
        let base = StubStoreBase(url: stubURL)
        return try StubXiaomi().settings(base).merging(try StubAmazon().settings(base)) { $1 }
    }

    var receiptsURL: String { receiptsURLs[0] }

    /// Every intake's, for a load spread across them.
    var receiptsURLs: [String] {
        intakePorts.enumerated().map { index, port in
            "http://\(network.address(of: index == 0 ? "intake" : "intake-\(index + 1)")):\(port)/v1/receipts"
        }
    }

    /// - Parameter cap: each stage in a CPU-capped cgroup of its own (the stub store never).
    func processes(cap: CPUCap? = nil) -> StageProcesses {
        StageProcesses(environment: environment, directory: directory, cap: cap)
    }

    /// Settings as the stages read them: for opening their database here.
    func stageSettings() throws -> PipelineSettings {
        try PipelineSettings(
            environment: EnvironmentReader(ProcessInfo.processInfo.environment.merging(environment) { $1 }))
    }

    /// Migrates the PostgreSQL database, if there is one; it must hold no receipts yet.
    func prepareDatabase(settings: PipelineSettings) async throws {
        guard let databaseURL else { return }
        let database = PostgresPipelineDatabase(
            location: try PostgresLocation(url: databaseURL), logger: settings.logger("bench"))
        let counts: SQLiteToPostgres.Counts
        do {
            try await database.migrate()
            counts = try await SQLiteToPostgres.counts(in: database)
            await database.close()
        } catch {
            await database.close()
            throw error
        }
        guard counts["receipts", default: 0] == 0 else {
            throw ValidationError("--database-url must name an empty database (it holds receipts)")
        }
    }

    func startStubStore(_ stages: StageProcesses, arguments: [String] = []) throws {
        let host = network.hostAddress
        try stages.start(
            "stub-store", ["stub-store", "--host", host, "--port", "\(stubPort)", "--bundle-id", bundleID] + arguments,
            readiness: "http://\(host):\(stubPort)/stub/stats", capped: false)
    }

    /// The first intake, `intake`.
    func startIntake(_ stages: StageProcesses) throws {
        try stages.start(
            "intake", ["intake"], readiness: "http://\(network.address(of: "intake")):\(intakePort)/readyz",
            environment: network.environment(of: "intake"), namespace: network.namespaces["intake"])
    }

    /// Every intake: `intake`, `intake-2`, ..., each on its port of ``intakePorts``.
    func startIntakes(_ stages: StageProcesses) throws {
        try startIntake(stages)
        for (index, port) in intakePorts.enumerated().dropFirst() {
            let name = "intake-\(index + 1)"
            try stages.start(
                name, ["intake"], readiness: "http://\(network.address(of: name)):\(port)/readyz",
                environment: network.environment(of: name).merging(["IAP_HTTP_PORT": "\(port)"]) { $1 },
                namespace: network.namespaces[name])
        }
    }

    /// Every stage in one `iap up` process, verifying against the stub store of ``startStubStore(_:arguments:)``.
    func startUp(_ stages: StageProcesses, concurrency: Int) throws {
        try stages.start(
            "up", ["up", "--concurrency", "\(concurrency)"],
            readiness: "http://\(network.address(of: "intake")):\(intakePort)/readyz")
    }

    @discardableResult
    func startValidator(_ stages: StageProcesses, index: Int, concurrency: Int) throws -> StageProcess {
        try startWorker(stages, name: "validator-\(index)", ["validator", "--concurrency", "\(concurrency)"])
    }

    /// `iap <role>` with an admin port of its own, whose `/readyz` says when it is ready.
    @discardableResult
    func startWorker(_ stages: StageProcesses, name: String, _ arguments: [String]) throws -> StageProcess {
        let port = StageProcesses.freePort()
        return try stages.start(
            name, arguments + ["--admin-port", "\(port)"],
            readiness: "http://\(network.address(of: name)):\(port)/readyz",
            environment: network.environment(of: name), namespace: network.namespaces[name])
    }

    /// The fulfillers and the notifiers, `replicas` of each.
    func startSettling(_ stages: StageProcesses, replicas: Int = 1) throws {
        for stage in ["fulfiller", "notifier"] {
            for replica in 1...replicas {
                try startWorker(stages, name: replica == 1 ? stage : "\(stage)-\(replica)", [stage])
            }
        }
    }
}
