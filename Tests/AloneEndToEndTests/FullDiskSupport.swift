import Foundation
import HTTPClient

@testable import EndToEndSupport

extension PipelineHarness {
    /// One receipt of 100 coins for its own transaction `{prefix}-{index}`, for one of ten
    /// accounts; the receipt id when it was taken, and the answer.
    func postCoins(_ index: Int, prefix: String = "full") async throws -> (receiptID: String?, response: HTTPResponse) {
        let receipt = self.receipt(transactions: [(id: "\(prefix)-\(index)", product: "com.example.coins100")])
        let response = try await postResponse(
            "/v1/receipts", ["account_id": "\(prefix)-player-\(index % 10)", "receipt_data": receipt])
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
