import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter

/// Runs `body` with a database in a real SQLite file in a fresh temporary directory.
func withTemporaryDatabase<T>(_ body: (SQLiteDatabase, String) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/pipeline.sqlite"
    return try await body(SQLiteDatabase(path: path), path)
}

func withTemporaryDatabase<T>(_ body: (SQLiteDatabase) async throws -> T) async throws -> T {
    try await withTemporaryDatabase { database, _ in try await body(database) }
}
