import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A statement over many rows comes in a shape per row count, and SQLite's connection keeps
/// every shape it has prepared: on SQLite the rows are cut into power-of-two chunks and
/// lookups padded to one, so that a batch of any size reuses a dozen shapes at most.
@Suite struct StatementShapeTests {
    @Test func sqliteChunksArePowersOfTwoLargestFirstInOrder() {
        for count in 0...300 {
            let rows = Array(0..<count)
            let chunks = SQLRows.chunks(rows, width: 3, dialect: .sqlite)
            #expect(chunks.flatMap { $0 } == rows)
            #expect(chunks.allSatisfy { $0.count.nonzeroBitCount == 1 })
            #expect(chunks.map(\.count) == chunks.map(\.count).sorted(by: >))
            #expect(chunks.count == count.nonzeroBitCount)
        }
    }

    @Test func aChunkFitsOneStatementsArguments() {
        let rows = Array(0..<10_000)
        let sqlite = SQLRows.chunks(rows, width: 18, dialect: .sqlite)
        // 30,000 / 18 = 1,666 rows fit; the largest power of two below is 1,024.
        #expect(sqlite.map(\.count).max() == 1_024)
        #expect(sqlite.flatMap { $0 } == rows)
        let postgres = SQLRows.chunks(rows, width: 18, dialect: .postgres)
        #expect(postgres.map(\.count) == [1_666, 1_666, 1_666, 1_666, 1_666, 1_666, 4])
        #expect(postgres.flatMap { $0 } == rows)
    }

    @Test func lookupsArePaddedWithTheirLastRowOnSQLiteOnly() {
        #expect(SQLRows.padded([Int](), dialect: .sqlite) == [])
        #expect(SQLRows.padded([7], dialect: .sqlite) == [7])
        #expect(SQLRows.padded([1, 2, 3], dialect: .sqlite) == [1, 2, 3, 3])
        #expect(SQLRows.padded([1, 2, 3, 4], dialect: .sqlite) == [1, 2, 3, 4])
        #expect(SQLRows.padded(Array(1...5), dialect: .sqlite) == [1, 2, 3, 4, 5, 5, 5, 5])
        #expect(SQLRows.padded([1, 2, 3], dialect: .postgres) == [1, 2, 3])
        let chunks = SQLRows.lookupChunks(Array(0..<20_000), width: 1, dialect: .sqlite)
        #expect(chunks.map(\.count) == [16_384, 4_096])
        #expect(Array(chunks.joined().prefix(20_000)) == Array(0..<20_000))
        #expect(chunks[1].suffix(4_096 - 3_616).allSatisfy { $0 == 19_999 })
    }

    /// Inserts, updates and lookups of every batch size from 1 to 200 in one connection:
    /// before, each size was a statement of its own kept prepared (some 600 here).
    @Test func batchesOfEverySizeReuseAFewPreparedStatements() async throws {
        try await withTemporaryDatabase { database in
            try await database.transaction { db in
                _ = try await db.execute("CREATE TABLE scratch (id TEXT PRIMARY KEY, n INTEGER, note TEXT)", [])
            }
            let before = database.preparedStatements()
            var next = 0
            for size in 1...200 {
                let ids = (next..<next + size).map { "row-\($0)" }
                next += size
                try await database.transaction { db in
                    try await db.insert(
                        into: "scratch", columns: ["id", "n", "note"], rows: ids.map { [$0, size, "new"] })
                    let changed = try await db.update(
                        "scratch", key: "id", columns: [SQLColumn("note", .text)], rows: ids.map { [$0, "seen"] })
                    #expect(changed == size)
                    let found = try await db.rows("SELECT id FROM scratch WHERE id IN (?)", in: ids)
                    #expect(Set(try found.map { try $0.get("id", as: String.self) }) == Set(ids))
                }
            }
            let after = database.preparedStatements()
            let rows = try await database.snapshot { db in
                try await db.value("SELECT COUNT(*) AS n FROM scratch WHERE note = 'seen'", as: Int.self)
            }
            #expect(rows == 20_100)
            // Shapes of 1, 2, 4, ... 128 rows for the insert and the update, and the lookup
            // padded to 1 ... 256: 8 + 8 + 9, and the transactions' own statements.
            print("prepared statements: \(before.count) -> \(after.count), \(before.bytes) -> \(after.bytes) bytes")
            #expect(after.count - before.count <= 30, "\(after.count - before.count) statements kept prepared")
        }
    }
}
