import DatabaseSQLite
import Foundation
import HTTPClient
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// SQLite's volume full: a pipeline whose database lives on a small tmpfs that a file fills
/// up. The intake answers 503 `storage_full` with `Retry-After` and stores nothing of what it
/// refuses; the fulfiller and the notifier wait; when the file goes, everything resumes by
/// itself, and every receipt answered 202 is credited once. Mounting needs root, and the test
/// needs the machine alone (`IAP_TEST_ALONE=1`).
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AloneFullDiskTests {
    @Test func aFullSQLiteVolumeRefusesWith503AndEverythingResumesWhenSpaceReturns() async throws {
        let volume = try TmpfsVolume(megabytes: 24)
        defer { volume.unmount() }
        let path = volume.path + "/iap.sqlite"
        // Apple answers after a second: receipts taken just before the fill are verified after
        // it, and their verdicts find the fulfiller's database full.
        var stub = StubStoreConfiguration(bundleID: PipelineHarness.bundleID)
        stub.latency = .seconds(1)
        try await PipelineHarness.run(
            database: try SQLiteDatabase(path: path), databaseEnvironment: ["IAP_DB_PATH": path],
            stub: stub, maxAttempts: 6, runsValidator: true,
            confirmsWithServerAPI: false, scheduler: .init(), console: nil, receiptVerification: .apple,
            catalog: PipelineHarness.catalog, pluginStores: false
        ) { pipeline in
            // Given a pipeline at work: 20 receipts credited, 20 more taken and being verified
            var accepted: [String] = []
            for index in 0..<20 { accepted.append(try #require(try await pipeline.postCoins(index).receiptID)) }
            for id in accepted { #expect(try await pipeline.finalStatus(id)["status"] as? String == "credited") }
            for index in 20..<40 { accepted.append(try #require(try await pipeline.postCoins(index).receiptID)) }

            // When a file takes every free block of the volume
            let filler = try volume.fill()
            print("full disk drill: volume filled (\(filler / 1024) KiB)")

            // Then receipts are taken while the database's free pages last, and then refused:
            // 503 storage_full with Retry-After, nothing stored
            var refusals: [HTTPResponse] = []
            var index = 40
            while refusals.count < 5, index < 20_040 {
                let answer = try await pipeline.postCoins(index)
                if let id = answer.receiptID { accepted.append(id) } else { refusals.append(answer.response) }
                index += 1
            }
            print("full disk drill: \(accepted.count - 40) receipts taken after the fill, then refused")
            try #require(refusals.count == 5, "the intake never refused a receipt on a full volume")
            for refusal in refusals {
                #expect(refusal.status == 503)
                #expect(refusal.header("Retry-After") == "30")
                #expect(refusal.bodyString.contains("\"storage_full\""), "\(refusal.bodyString)")
            }

            // And the 20 being verified wait: their verdicts cannot be stored
            try await Task.sleep(for: .seconds(3))
            let waiting = try await ReceiptRepository(pipeline.database).receiptStatusCounts()
            print("full disk drill: while full: \(waiting)")
            #expect(waiting[.credited, default: 0] < accepted.count)

            // When space returns
            volume.removeFill()
            let returned = ContinuousClock.now

            // Then every receipt answered 202 is credited once, with its webhook, and nothing
            // refused was stored
            for id in accepted {
                #expect(try await pipeline.finalStatus(id, timeout: .seconds(60))["status"] as? String == "credited")
            }
            print("full disk drill: every receipt credited \(ContinuousClock.now - returned) after space returned")
            let stored = try await ReceiptRepository(pipeline.database).receiptStatusCounts().values.reduce(0, +)
            #expect(stored == accepted.count)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
            let webhooks = await eventually(timeout: .seconds(30)) {
                accepted.allSatisfy { !pipeline.webhooks(for: $0).isEmpty }
            }
            #expect(webhooks)
        }
    }
}
