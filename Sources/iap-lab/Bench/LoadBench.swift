import ArgumentParser
import Database
import DatabaseSQLite
import Foundation
import IAPCommands
import Intake
import PipelineCore
import Repositories
import SettlementWriter
import StubStore

extension Lab.Bench {
    /// Drives a pipeline that runs as separate processes (see Benchmarks/scaling/run.sh):
    /// posts receipts to the intake and waits until the fulfiller has credited them all.
    struct LoadBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load",
            abstract:
                "Receipts per second through running intake, validator and fulfiller processes (same IAP_* settings).",
            discussion: """
                Receipts are minted with the stub store's development signing key, so the verify
                endpoint must be an `iap-lab stub-store` with the default key. Credits are read from
                IAP_DB_PATH. With --clean-up, the queues and exchanges of IAP_QUEUE_PREFIX are
                deleted afterwards (stop the processes first).
                """)

        @Option(help: "Receipts to submit.") var receipts = 2_000
        @Option(help: "HTTP requests in flight.") var clients = 64
        @Option(help: "Seconds to wait for the last credit.") var timeout = 600
        @Flag(help: "Only delete the topology of IAP_QUEUE_PREFIX, then exit.") var cleanUp = false
        @Flag(
            help:
                "Intake alone: wait until the relay has published every receipt, not for credits (no validator needed)."
        )
        var acceptOnly = false

        func validate() throws {
            guard receipts > 0, clients > 0, timeout > 0 else {
                throw ValidationError("receipts, clients and timeout must be positive")
            }
        }

        func run() async throws {
            let settings = try PipelineSettings()
            if cleanUp { return await ReceiptLoad.deleteTopology(settings.topology.topology, amqp: settings.amqp) }
            let intake = try IntakeConfiguration(environment: settings.environment, apps: settings.apps)
            let database = try await settings.openDatabase()
            let bundleID = settings.environment.string("IAP_BUNDLE_ID", default: "com.example.game")
            let load = ReceiptLoad(
                count: receipts, minter: StubAppStore(configuration: StubStoreConfiguration(bundleID: bundleID)),
                bundleID: bundleID, transactionPrefix: "load-\(UUID().uuidString.prefix(8).lowercased())",
                accountPrefix: "load")
            let before = try await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0]
            let start = ContinuousClock.now
            try await load.post(
                to: "http://127.0.0.1:\(intake.port)/v1/receipts", token: intake.apiTokens[0], clients: clients)
            let accepted = ContinuousClock.now - start
            if acceptOnly {
                try await ReceiptLoad.waitUntilPublished(in: database, until: start + .seconds(timeout))
                let published = ContinuousClock.now - start
                print("load: \(receipts) receipts, \(clients) HTTP clients, intake alone")
                ReceiptLoad.report("accepted (202, durable)", receipts: receipts, accepted)
                ReceiptLoad.report("published (broker confirmed)", receipts: receipts, published)
                return
            }
            try await ReceiptLoad.waitForCredits(before + receipts, in: database, until: start + .seconds(timeout))
            let credited = ContinuousClock.now - start
            print("load: \(receipts) receipts, \(clients) HTTP clients")
            ReceiptLoad.report("accepted (202, durable)", receipts: receipts, accepted)
            ReceiptLoad.report("credited end to end", receipts: receipts, credited)
        }
    }
}
