import DatabasePostgres
import Foundation
import HTTPClient
import Logging
import Observability
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// PostgreSQL's volumes full, on a server of the test's own (``TmpfsPostgres``). Its data
/// volume full, PostgreSQL refuses writes with disk_full: the intake answers 503
/// `storage_full` with `Retry-After` and stores nothing of what it refuses. Its WAL volume
/// full, PostgreSQL PANICs and stops: the intake answers 503 `unavailable`, the fulfiller, the
/// notifier and the relay pause (`iap_stage_paused`); the test, as systemd would, starts the server
/// again once space is back, and everything resumes by itself. Every receipt answered 202 is
/// credited once, with its webhook. Needs root and the machine alone (`IAP_TEST_ALONE=1`).
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AlonePostgresFullDiskTests {
    @Test func fullPostgreSQLVolumesAreRefusedWith503AndEverythingResumesOnceSpaceIsBack() async throws {
        let metrics = MetricsBootstrap.prometheus()
        let server = try await TmpfsPostgres.start()
        var logger = Logger(label: "postgres-full")
        logger.logLevel = .error
        let database = PostgresPipelineDatabase(
            location: try PostgresLocation(url: server.url), connections: 4, logger: logger)
        do {
            try await database.migrate()
            // Apple answers after a second: receipts taken just before a fill are verified
            // after it, and their verdicts find the database full, or gone.
            var stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
            stub.latency = .seconds(1)
            try await PipelineHarness.run(
                database: database, databaseEnvironment: ["IAP_DATABASE_URL": server.url], stub: stub,
                maxAttempts: 6, runsValidator: true, confirmsWithServerAPI: false, scheduler: .init(), console: nil,
                receiptVerification: .apple, catalog: PipelineHarness.catalog, pluginStores: false
            ) { pipeline in
                var drill = Drill(pipeline: pipeline, server: server, metrics: metrics)
                try await drill.dataVolumeFull()
                try await drill.walVolumeFull()
                try await drill.everythingCreditedOnce()
            }
        } catch {
            print("full disk drill (postgres): the server's log ends with\n\(server.logTail())")
            await database.close()
            await server.destroy()
            throw error
        }
        await database.close()
        await server.destroy()
    }

    struct Drill {
        let pipeline: PipelineHarness
        let server: TmpfsPostgres
        let metrics: MetricsRegistry
        /// Receipts answered 202, by index.
        var accepted: [Int: String] = [:]
        var next = 0

        /// Posts the next receipt; its answer.
        mutating func post() async throws -> HTTPResponse {
            let answer = try await pipeline.postCoins(next, prefix: "pgfull")
            if let id = answer.receiptID { accepted[next] = id }
            next += 1
            return answer.response
        }

        mutating func dataVolumeFull() async throws {
            // Given a pipeline at work: 20 receipts credited, 20 more taken and being verified
            for _ in 0..<20 { try #require(try await post().status == 202) }
            for id in accepted.values { #expect(try await pipeline.finalStatus(id)["status"] as? String == "credited") }
            for _ in 0..<20 { try #require(try await post().status == 202) }

            // When a file takes every free block of the data volume
            let filler = try server.data.fill()
            let filled = ContinuousClock.now
            print("full disk drill (postgres): data volume filled (\(filler / 1024) KiB)")

            // Then receipts are refused: 503 storage_full with Retry-After, nothing stored
            let takenBefore = accepted.count
            var refusals: [HTTPResponse] = []
            while refusals.count < 5, next < 2_040 {
                let answer = try await post()
                if answer.status != 202 { refusals.append(answer) }
            }
            print(
                "full disk drill (postgres): \(accepted.count - takenBefore) receipts taken after the fill, "
                    + "first refusal \(ContinuousClock.now - filled) after it")
            try #require(refusals.count == 5, "the intake never refused a receipt on a full data volume")
            for refusal in refusals {
                #expect(refusal.status == 503)
                #expect(refusal.header("Retry-After") == "30")
                #expect(refusal.bodyString.contains("\"storage_full\""), "\(refusal.bodyString)")
            }
            // And the 20 being verified wait: their verdicts cannot be stored
            try await Task.sleep(for: .seconds(3))
            let waiting = try await ReceiptRepository(pipeline.database).receiptStatusCounts()
            print("full disk drill (postgres): while full: \(waiting), paused: \(paused())")
            #expect(waiting[.credited, default: 0] < accepted.count)

            // When space returns, everything taken is credited
            server.data.removeFill()
            let returned = ContinuousClock.now
            for id in accepted.values {
                #expect(try await pipeline.finalStatus(id, timeout: .seconds(60))["status"] as? String == "credited")
            }
            print(
                "full disk drill (postgres): every receipt credited \(ContinuousClock.now - returned) after space returned"
            )
        }

        mutating func walVolumeFull() async throws {
            // Given 20 receipts taken and being verified
            for _ in 0..<20 { try #require(try await post().status == 202) }

            // When a file takes every free block of the WAL volume, and WAL must grow
            _ = try server.wal.fill()
            let filled = ContinuousClock.now
            await server.switchWALSegments()

            // Then PostgreSQL PANICs and stops (its recovery cannot write WAL either)
            let stopped = await eventually(timeout: .seconds(30), every: .milliseconds(200)) {
                await !server.isRunning()
            }
            print(
                "full disk drill (postgres): WAL volume filled; server stopped: \(stopped), "
                    + "\(ContinuousClock.now - filled) after the fill")
            try #require(stopped, "PostgreSQL kept running on a full WAL volume:\n\(server.logTail(10))")

            // And the stages that write pause: the fulfiller (the 20 verdicts), the notifier, the relay
            let pausedAll = await eventually(timeout: .seconds(30)) {
                Set(["fulfiller", "notifier", "relay"]).isSubset(of: paused())
            }
            print("full disk drill (postgres): paused \(paused()) \(ContinuousClock.now - filled) after the fill")
            #expect(pausedAll)
            // And the intake answers 503 unavailable with Retry-After, storing nothing
            for _ in 0..<3 {
                let asked = ContinuousClock.now
                let answer = try await post()
                print(
                    "full disk drill (postgres): while stopped, the intake answered \(answer.status) "
                        + "\(answer.bodyString.prefix(40))… in \(ContinuousClock.now - asked)")
                #expect(answer.status == 503)
                #expect(answer.header("Retry-After") == "5")
                #expect(answer.bodyString.contains("\"unavailable\""), "\(answer.bodyString)")
            }

            // When the supervisor frees the volume and starts PostgreSQL again
            server.wal.removeFill()
            try await server.start()
            let restarted = ContinuousClock.now

            // Then the intake takes receipts again, and the stages resume
            var refused = 0
            while try await post().status != 202, refused < 600 {
                refused += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            print(
                "full disk drill (postgres): the intake took a receipt \(ContinuousClock.now - restarted) "
                    + "after the restart (\(refused) refused meanwhile)")
            let resumed = await eventually(timeout: .seconds(60)) { paused().isEmpty }
            print("full disk drill (postgres): stages resumed \(ContinuousClock.now - restarted) after the restart")
            #expect(resumed)
            for id in accepted.values {
                #expect(try await pipeline.finalStatus(id, timeout: .seconds(60))["status"] as? String == "credited")
            }
            print(
                "full disk drill (postgres): every receipt credited \(ContinuousClock.now - restarted) after the restart"
            )
        }

        func everythingCreditedOnce() async throws {
            let stored = try await ReceiptRepository(pipeline.database).receiptStatusCounts().values.reduce(0, +)
            print("full disk drill (postgres): \(accepted.count) answered 202 of \(next) posted, \(stored) stored")
            #expect(stored == accepted.count)
            for player in 0..<10 {
                let credited = accepted.keys.filter { $0 % 10 == player }.count * 100
                #expect(try await pipeline.balance("pgfull-player-\(player)") == credited)
            }
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            let webhooks = await eventually(timeout: .seconds(30)) {
                accepted.values.allSatisfy { !pipeline.webhooks(for: $0).isEmpty }
            }
            #expect(webhooks)
        }

        /// The stages `iap_stage_paused` says wait, sorted.
        func paused() -> [String] {
            let text = String(decoding: metrics.emitToBuffer(), as: UTF8.self)
            let samples = (try? PrometheusText(parsing: text))?.families[MetricName.stagePaused]?.samples ?? []
            return samples.filter { $0.value == 1 }.compactMap { $0.labels["stage"] }.sorted()
        }
    }
}
