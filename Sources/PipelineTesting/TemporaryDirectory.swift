import Foundation

/// A fresh directory under the system's temp dir, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "iap-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Polls `condition` until it holds or `timeout` passes; true when it held.
public func eventually(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
