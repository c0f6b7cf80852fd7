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
            for index in 0..<20 { accepted.append(try #require(try await post(index, pipeline).receiptID)) }
            for id in accepted { #expect(try await pipeline.finalStatus(id)["status"] as? String == "credited") }
            for index in 20..<40 { accepted.append(try #require(try await post(index, pipeline).receiptID)) }

            // When a file takes every free block of the volume
            let filler = try volume.fill()
            print("full disk drill: volume filled (\(filler / 1024) KiB)")

            // Then receipts are taken while the database's free pages last, and then refused:
            // 503 storage_full with Retry-After, nothing stored
            var refusals: [HTTPResponse] = []
            var index = 40
            while refusals.count < 5, index < 20_040 {
                let answer = try await post(index, pipeline)
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

    /// One receipt of 100 coins for its own transaction; the receipt id when it was taken.
    private func post(_ index: Int, _ pipeline: PipelineHarness) async throws -> (
        receiptID: String?, response: HTTPResponse
    ) {
        let receipt = pipeline.receipt(transactions: [(id: "full-\(index)", product: "com.example.coins100")])
        let response = try await pipeline.client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(pipeline.intakePort)/v1/receipts",
                headers: [
                    (name: "Authorization", value: "Bearer \(PipelineHarness.token)"),
                    (name: "Content-Type", value: "application/json"),
                ],
                body: Array(
                    try JSONSerialization.data(withJSONObject: [
                        "account_id": "full-player-\(index % 10)", "receipt_data": receipt,
                    ]))))
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (response.status == 202 ? json?["receipt_id"] as? String : nil, response)
    }
}

/// A tmpfs of a few megabytes, mounted for one test, and a file that fills it.
struct TmpfsVolume {
    let path: String

    init(megabytes: Int) throws {
        path = NSTemporaryDirectory() + "iap-full-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path)
    }

    var fillPath: String { path + "/filler" }

    /// Writes a file until the volume refuses a byte more; returns its size.
    func fill() throws -> Int {
        let fd = open(fillPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var written = 0
        for size in [1 << 20, 4096, 1] {
            let chunk = [UInt8](repeating: 0xAB, count: size)
            while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size { written += size }
        }
        return written
    }

    func removeFill() { unlink(fillPath) }

    func unmount() {
        try? Self.run("/bin/umount", "-l", path)
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ command: String, _ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: "\(command) \(arguments) failed"])
        }
    }
}
