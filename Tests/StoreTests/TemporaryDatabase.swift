import Foundation
import PipelineCore
import Store

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("store-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a database in a real SQLite file in a fresh temporary directory.
func withTemporaryDatabase<T>(_ body: (PipelineDatabase, String) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/pipeline.sqlite"
    return try body(PipelineDatabase(path: path), path)
}

func withTemporaryDatabase<T>(_ body: (PipelineDatabase) throws -> T) throws -> T {
    try withTemporaryDatabase { database, _ in try body(database) }
}
