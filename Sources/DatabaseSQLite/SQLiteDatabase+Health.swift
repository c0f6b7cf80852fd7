import Database
import Foundation
import SettlementWriter

extension SQLiteDatabase {
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
