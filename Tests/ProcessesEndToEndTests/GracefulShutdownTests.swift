import Database
import DatabaseSQLite
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Synchronization
import Testing

@testable import EndToEndSupport

/// SIGTERM, as Kubernetes or systemd stop a process, in the middle of a busy run: the
/// process must leave within its grace period with status 0, and nothing may be lost or
/// credited twice once it is back.
@Suite struct GracefulShutdownTests {
    static let grace = 5
    /// Process start-up, the broker's connection close and a slow shared machine.
    static let margin: Duration = .seconds(5)

    @Test func sigtermToValidatorAndFulfillerMidRunLosesNothingAndCreditsOnce() async throws {
        // A verify endpoint with some latency keeps messages in flight in the validator.
        let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID, latency: .milliseconds(20))
        let environment = ["IAP_SHUTDOWN_GRACE": "\(Self.grace)", "IAP_LOG_LEVEL": "info"]
        try await ProcessPipeline.run(stub: stub, environment: environment) { pipeline in
            // Given the pipeline as processes and 2,000 receipts for 40 accounts
            let count = 2_000
            let accounts = 40
            _ = try pipeline.start(["intake"])
            var validator = try pipeline.start(["validator", "--concurrency", "32"])
            var fulfiller = try pipeline.start(["fulfiller", "--batch-size", "64"])
            #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
            let receipts = (0..<count).map { pipeline.receipt(transaction: "sigterm-\($0)") }
            let database = try pipeline.database()
            func credited() async -> Int {
                (try? await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0]) ?? 0
            }

            // When they are submitted while the validator, then the fulfiller, get SIGTERM mid-run
            let submitting = Task {
                try await Self.submitAll(receipts, accounts: accounts, through: pipeline, clients: 16)
            }
            #expect(await eventually(timeout: .seconds(120), every: .milliseconds(250)) { await credited() >= 300 })
            let validatorStop = try #require(await validator.terminate())
            #expect(validatorStop.reason == .exit && validatorStop.status == 0, "validator exit: \(validatorStop)")
            #expect(validatorStop.took < .seconds(Self.grace) + Self.margin, "validator took \(validatorStop.took)")
            print(
                "graceful shutdown: validator exited \(validatorStop.status) after \(validatorStop.took), \(await credited()) credited"
            )
            validator = try pipeline.start(["validator", "--concurrency", "32"])

            #expect(await eventually(timeout: .seconds(120), every: .milliseconds(250)) { await credited() >= 1_000 })
            let fulfillerStop = try #require(await fulfiller.terminate())
            #expect(fulfillerStop.reason == .exit && fulfillerStop.status == 0, "fulfiller exit: \(fulfillerStop)")
            #expect(fulfillerStop.took < .seconds(Self.grace) + Self.margin, "fulfiller took \(fulfillerStop.took)")
            print(
                "graceful shutdown: fulfiller exited \(fulfillerStop.status) after \(fulfillerStop.took), \(await credited()) credited"
            )
            fulfiller = try pipeline.start(["fulfiller", "--batch-size", "64"])

            let accepted = try await submitting.value
            #expect(accepted.count == count)

            // Then every receipt is credited exactly once
            #expect(await eventually(timeout: .seconds(180), every: .milliseconds(500)) { await credited() == count })
            try await Self.expectBooks(database, receipts: count, accounts: accounts, pipeline: pipeline)
            _ = validator
            _ = fulfiller
        }
    }

    @Test func sigtermToIntakeDuringSubmissionsCreditsEveryReceiptAnswered202() async throws {
        let environment = ["IAP_SHUTDOWN_GRACE": "\(Self.grace)", "IAP_LOG_LEVEL": "notice"]
        try await ProcessPipeline.run(
            stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID), environment: environment
        ) {
            pipeline in
            // Given the pipeline as processes
            var intake = try pipeline.start(["intake"])
            _ = try pipeline.start(["validator", "--concurrency", "32"])
            _ = try pipeline.start(["fulfiller"])
            let healthz = "http://127.0.0.1:\(pipeline.intakePort)/healthz"
            #expect(await pipeline.waitUntilServing(healthz))
            let database = try pipeline.database()

            // When the intake gets SIGTERM while backends keep submitting
            let receipts = (0..<2_000).map { pipeline.receipt(transaction: "intake-\($0)") }
            let submitting = Task {
                try await Self.submitAll(
                    receipts, accounts: 20, through: pipeline, clients: 16, stopAtFirstFailure: true)
            }
            #expect(
                await eventually(timeout: .seconds(60), every: .milliseconds(250)) {
                    ((try? await ReceiptRepository(database).receiptStatusCounts())?.values.reduce(0, +) ?? 0) >= 300
                })
            let stop = try #require(await intake.terminate())
            #expect(stop.reason == .exit && stop.status == 0, "intake exit: \(stop)")
            #expect(stop.took < .seconds(Self.grace) + Self.margin, "intake took \(stop.took)")
            let accepted = try await submitting.value
            print("graceful shutdown: intake exited \(stop.status) after \(stop.took), \(accepted.count) answered 202")
            #expect(accepted.count >= 300 && accepted.count < receipts.count, "accepted \(accepted.count)")

            // Then, with the intake back (its relay sweeps what it had not published), every 202 is credited
            intake = try pipeline.start(["intake"])
            #expect(await pipeline.waitUntilServing(healthz))
            let allCredited = await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
                (try? await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0]) ?? 0
                    >= accepted.count
            }
            #expect(allCredited)
            for id in accepted {
                #expect(try await ReceiptRepository(database).receipt(id: id)?.status == .credited, "receipt \(id)")
            }
            #expect(try await LedgerRepository(database).audit().isEmpty)
            _ = intake
        }
    }

    @Test func sigtermPastTheGracePeriodRequeuesTheVerificationsStillInFlight() async throws {
        // Given a verify endpoint slower than the grace period, and a validator holding 10 receipts
        let stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID, latency: .seconds(8))
        try await ProcessPipeline.run(stub: stub, environment: ["IAP_SHUTDOWN_GRACE": "1"]) { pipeline in
            _ = try pipeline.start(["intake"])
            let validator = try pipeline.start(["validator", "--concurrency", "16"])
            _ = try pipeline.start(["fulfiller"])
            #expect(await pipeline.waitUntilServing("http://127.0.0.1:\(pipeline.intakePort)/healthz"))
            let count = 10
            for index in 0..<count {
                let (status, _) = try await pipeline.submit(
                    account: "patient", receiptData: pipeline.receipt(transaction: "slow-\(index)"))
                #expect(status == 202)
            }
            #expect(await eventually(timeout: .seconds(30)) { pipeline.stub.stats.production.requests >= count })

            // When it gets SIGTERM while every verification is still waiting for the endpoint
            let stop = try #require(await validator.terminate())

            // Then it leaves after the grace period with status 0, having decided nothing
            #expect(stop.reason == .exit && stop.status == 0, "validator exit: \(stop)")
            #expect(stop.took >= .seconds(1) && stop.took < .seconds(1) + Self.margin, "validator took \(stop.took)")
            let database = try pipeline.database()
            #expect(try await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0] == 0)
            #expect(pipeline.logs().contains("shutdown grace period over, requeueing unfinished messages"))

            // And the next validator credits every one of them, once
            _ = try pipeline.start(["validator", "--concurrency", "16"])
            #expect(
                await eventually(timeout: .seconds(60)) {
                    (try? await ReceiptRepository(database).receiptStatusCounts())?[.credited, default: 0] == count
                })
            #expect(try await LedgerRepository(database).account(id: "patient")?.balances["coins"] == count * 100)
            #expect(try await LedgerRepository(database).audit().isEmpty)
        }
    }

    @Test func anIntakeWhosePortIsTakenExitsWithTheErrorInsteadOfHanging() async throws {
        // Given a port something else listens on
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        #expect(listen(listener, 1) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        // When the intake is told to listen there (no broker needed to see it)
        let started = ContinuousClock.now
        let result = try await IAPProcess.run(
            ["intake"],
            environment: [
                "IAP_HTTP_PORT": "\(port)", "IAP_API_TOKENS": ProcessPipeline.token,
                "IAP_DB_PATH": directory.file("iap.sqlite"), "IAP_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/",
            ])

        // Then it stops at once with the reason, rather than hang with its relay waiting
        #expect(result.status != 0)
        #expect(result.output.contains("Address already in use"))
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    // MARK: - Helpers

    /// Posts every receipt (account by index), `clients` at a time; returns the ids answered 202.
    /// With `stopAtFirstFailure`, a client stops when the intake stops answering.
    static func submitAll(
        _ receipts: [String], accounts: Int, through pipeline: ProcessPipeline, clients: Int,
        stopAtFirstFailure: Bool = false
    ) async throws -> [String] {
        let next = Cursor()
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<clients {
                group.addTask {
                    var ids: [String] = []
                    while true {
                        let index = next.value.add(1, ordering: .relaxed).oldValue
                        guard index < receipts.count else { return ids }
                        do {
                            let (status, id) = try await pipeline.submit(
                                account: "player-\(index % accounts)", receiptData: receipts[index])
                            if status == 202, let id { ids.append(id) } else if stopAtFirstFailure { return ids }
                        } catch {
                            if stopAtFirstFailure { return ids }
                            throw error
                        }
                    }
                }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
    }

    /// Balances, ledger entries and `iap audit` agree that each receipt was credited once.
    static func expectBooks(_ database: SQLiteDatabase, receipts: Int, accounts: Int, pipeline: ProcessPipeline)
        async throws
    {
        var coins = 0
        var entries = 0
        for index in 0..<accounts {
            let details = try await LedgerRepository(database).account(id: "player-\(index)", ledgerLimit: 100_000)
            let account = try #require(details)
            coins += account.balances["coins"] ?? 0
            entries += account.ledger.count
        }
        #expect(coins == receipts * 100)
        #expect(entries == receipts)
        let findings = try await LedgerRepository(database).audit()
        #expect(findings.isEmpty)
        let audit = try await IAPProcess.run(["audit"], environment: pipeline.environment)
        #expect(audit.status == 0, "iap audit: \(audit.output)")
    }
}

/// The next receipt to submit, shared by the clients.
private final class Cursor: Sendable {
    let value = Atomic<Int>(0)
}
