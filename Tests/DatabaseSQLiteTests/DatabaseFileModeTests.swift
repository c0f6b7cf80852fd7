import Database
import DatabaseSQLite
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// The database holds accounts and receipts: its file, WAL and shared-memory index are
/// created readable by their owner only, even when the umask would let everyone read them.
@Suite(.serialized) struct DatabaseFileModeTests {
    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
    }

    @Test func aNewDatabaseAndItsWALAreCreated0600() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"

        // When the database is created and written (the migrations write), under the
        // process's umask (022 here: 0644 files otherwise; the umask is not changed, since it
        // is the whole process's and other tests create files meanwhile)
        let database = try SQLiteDatabase(path: path)

        // Then the file, its WAL and its shared-memory index are 0600
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file) exists")
            let found = try mode(file)
            #expect(found == 0o600, "\(file) is \(String(found, radix: 8))")
        }
        // (SQLite removes the WAL when the last connection closes: keep it open till here.)
        withExtendedLifetime(database) {}
    }

    @Test func anExistingDatabaseKeepsTheModeItsOperatorGaveIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/pipeline.sqlite"
        _ = try SQLiteDatabase(path: path)
        // Given an operator who lets a backup group read the file
        #expect(chmod(path, 0o640) == 0)
        // When it is opened again, Then its mode is left alone
        _ = try SQLiteDatabase(path: path)
        #expect(try mode(path) == 0o640)
    }
}
