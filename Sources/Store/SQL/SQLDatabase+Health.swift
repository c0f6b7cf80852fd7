import Foundation

extension SQLDatabase {
    /// A trivial read, for readiness probes: throws when the database does not answer.
    /// (Awaited, not blocking: a probe must not hold one of the task pool's few threads
    /// for a round trip to a server.)
    public func ping() async throws {
        _ = try await snapshot { db in try db.value("SELECT 1 AS one", as: Int.self) }
    }
}

extension PipelineDatabase {
    /// Checks that the file at `path` is still there, readable and writable, and answers a
    /// trivial query: an open connection keeps working on a file that was deleted or whose
    /// volume went away, so asking the open connection alone would not notice.
    /// - Throws: an error naming what is wrong.
    public func ping(path: String) async throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw HealthError(description: "\(path) does not exist")
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw HealthError(description: "\(path) is not readable and writable")
        }
        try await ping()
    }
}

/// A failed health check of the database.
public struct HealthError: Error, CustomStringConvertible {
    public let description: String
}
