import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// SQLite's statements take their values through SQLite's own binding calls: every kind of
/// value comes back as it went in, a wrong count of values is refused, and a statement the
/// connection keeps carries nothing from one run into the next.
@Suite struct StatementValueTests {
    static let big = String(repeating: "ü0", count: 400_000)

    @Test func everyKindOfValueComesBackAsItWentIn() async throws {
        try await withTestDatabase(.sqlite) { database in
            let date = Date(timeIntervalSince1970: 1_764_600_000.125)
            let cases: [(SQLValue, SQLValue)] = [
                (.null, .null),
                (.integer(.min), .integer(.min)), (.integer(.max), .integer(.max)), (.integer(0), .integer(0)),
                (.real(0.1), .real(0.1)), (.real(-1e300), .real(-1e300)),
                (.bool(true), .integer(1)), (.bool(false), .integer(0)),
                (.text(""), .text("")), (.text("héllo ✓ 🎉"), .text("héllo ✓ 🎉")), (.text(Self.big), .text(Self.big)),
                (.blob([]), .blob([])), (.blob([0, 1, 255]), .blob([0, 1, 255])),
                (.date(date), .text("2025-12-01 14:40:00.125")),
            ]
            let read = try await database.transaction { db in
                var read: [SQLValue] = []
                // One statement run again and again: each run's value is its own.
                for (value, _) in cases { read.append(try await db.rows("SELECT ? AS v", [value])[0].columns["v"]!) }
                return read
            }
            for ((value, expected), got) in zip(cases, read) {
                #expect(got == expected, "\(String(describing: value).prefix(80))")
            }
        }
    }

    @Test func aWrongCountOfValuesIsRefusedAndTheStatementStillServes() async throws {
        try await withTestDatabase(.sqlite) { database in
            for arguments: SQLArguments in [["a"], ["a", "b", "c"], []] {
                await #expect {
                    try await database.transaction { db in try await db.rows("SELECT ? AS x, ? AS y", arguments) }
                } throws: { error in
                    guard case SQLError.database(let message) = error else { return false }
                    return message.contains("wrong number of statement arguments")
                }
            }
            let row = try await database.transaction { db in try await db.rows("SELECT ? AS x, ? AS y", ["a", 2]) }
            #expect(row.first?.columns == ["x": .text("a"), "y": .integer(2)])
        }
    }

    @Test func aRunThatFailedLeavesNothingBoundForTheNext() async throws {
        try await withTestDatabase(.sqlite) { database in
            let insert = "INSERT INTO binding_probe (k, v) VALUES (?, ?)"
            try await database.transaction { db in
                try await db.execute("CREATE TABLE binding_probe (k INTEGER PRIMARY KEY, v)", [])
                try await db.execute(insert, [1, "first"])
            }
            // When the same statement breaks the key
            await #expect(throws: SQLError.self) {
                try await database.transaction { db in try await db.execute(insert, [1, "again"]) }
            }
            // Then it runs again with its own values, a NULL where the last run had text
            try await database.transaction { db in
                try await db.execute(insert, [2, SQLValue.null])
                try await db.execute(insert, [3, "third"])
            }
            let rows = try await database.snapshot { db in
                try await db.rows("SELECT k, v FROM binding_probe ORDER BY k", []).map(\.columns)
            }
            #expect(
                rows == [
                    ["k": .integer(1), "v": .text("first")], ["k": .integer(2), "v": .null],
                    ["k": .integer(3), "v": .text("third")],
                ])
        }
    }
}
