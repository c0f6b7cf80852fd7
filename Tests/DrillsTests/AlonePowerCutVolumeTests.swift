import Database
import DatabaseSQLite
import Drills
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Testing

/// The intake's commits against a power cut (``PowerCutVolume``): every receipt the intake's
/// commit returned for is there after the cut, and the same rows written with a relaxed commit
/// are not, so that a commit a client is told about made relaxed fails here. Mounting needs
/// root and the lab's powercut-fs (`scripts/powercut-fs.sh build`); the pass of tests that
/// have the machine alone runs it.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1" && getuid() == 0))
struct AlonePowerCutVolumeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func receiptsTheIntakeCommittedSurviveACutAndRelaxedCommitsDoNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = try #require(
            PowerCutVolume.locateExecutable(directory: Self.root), "build it: scripts/powercut-fs.sh build")
        let volume = try PowerCutVolume(directory: directory.path, executable: executable)
        try await volume.mount()
        let path = volume.mountpoint + "/iap.sqlite"

        // Given 200 receipts the intake's commit returned for, then 200 accounts written with
        // relaxed commits (the relay's marks' kind), the database left open as a killed process
        // leaves it (closing it would checkpoint, and sync, the WAL)
        let before = try SQLiteDatabase(path: path)
        let receipts = (0..<200).map { NewReceiptFixture.receipt("r-\($0)", account: "player-\($0 % 9)") }
        for batch in stride(from: 0, to: receipts.count, by: 20) {
            _ = try await IntakeRepository(before).accept(Array(receipts[batch..<batch + 20]), now: Date())
        }
        for index in 0..<200 {
            try await before.transaction(priority: .normal, sync: .relaxed) { db in
                try await db.execute(
                    "INSERT INTO accounts (id, created_at) VALUES (?, ?)", ["relaxed-\(index)", db.stored(Date())])
            }
        }

        // When the power goes, within the half second after which SQLite syncs relaxed
        // commits by itself (``WALSync/syncSoon()``)
        let dropped = try await volume.cut()
        print("power cut: \(dropped)")
        try await volume.mount()

        // Then every receipt is there, and relaxed commits were lost
        let after = try SQLiteDatabase(path: path)
        let stored = try await after.snapshot { db in try await db.rows("SELECT id FROM receipts").count }
        #expect(stored == receipts.count)
        let relaxed = try await after.snapshot { db in
            try await db.value("SELECT count(*) FROM accounts WHERE id LIKE 'relaxed-%'", as: Int.self) ?? -1
        }
        print("power cut: \(stored) of \(receipts.count) receipts kept, \(relaxed) of 200 relaxed commits")
        #expect(relaxed < 200, "a cut that keeps every relaxed commit would not find a relaxed intake commit")
        withExtendedLifetime(before) {}
        // A cut detaches the volume whoever still holds it open (this process does).
        _ = try? await volume.cut()
    }
}

/// A receipt as the intake stores it.
enum NewReceiptFixture {
    static func receipt(_ id: String, account: String) -> NewReceipt {
        NewReceipt(
            id: id, accountID: account, kind: .legacy, payload: "payload-of-\(id)",
            payloadHash: PayloadHash.sha256Hex("legacy" + id), orderID: nil, productID: nil, idempotencyKey: nil,
            requestHash: PayloadHash.sha256Hex(id))
    }
}
