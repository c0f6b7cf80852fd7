import Foundation

extension SQLDatabase {
    /// A trivial read, for readiness probes: throws when the database does not answer.
    /// (Awaited, not blocking: a probe must not hold one of the task pool's few threads
    /// for a round trip to a server.)
    public func ping() async throws {
        _ = try await snapshot { db in try await db.value("SELECT 1 AS one", as: Int.self) }
    }
}

/// A failed health check of the database.
public struct HealthError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
