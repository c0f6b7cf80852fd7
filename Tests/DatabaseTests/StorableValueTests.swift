import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

/// No write path stores what the read path cannot read back: both backends refuse a date
/// outside years 1970-9999 and a text holding NUL where the value is bound, naming it, and
/// change nothing.
@Suite struct StorableValueTests {
    @Test(arguments: TestBackend.allCases) func aDatePastYear9999OrNULIsRefusedBeforeItIsWritten(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given an account
            try await database.transaction { db in
                try await db.execute("INSERT INTO accounts (id, created_at) VALUES (?, ?)", ["a1", Date()])
            }
            let beyond = Date(timeIntervalSince1970: 253_402_300_800)  // 10000-01-01
            let cases: [(SQLArguments, String)] = [
                (["a1", "vip", beyond, Date()], "outside years 1970-9999"),
                (["a1", "vip", Date(timeIntervalSince1970: -1), Date()], "outside years 1970-9999"),
                (["a1", "v\u{0}ip", Date(), Date()], "NUL"),
            ]
            for (arguments, problem) in cases {
                // When each is written
                await #expect {
                    try await database.transaction { db in
                        try await db.execute(
                            "INSERT INTO entitlements (account_id, name, expires_at, updated_at) VALUES (?, ?, ?, ?)",
                            arguments)
                    }
                } throws: { error in
                    // Then it is refused as the work's fault, naming the problem
                    guard case SQLError.unstorable(let message) = error else { return false }
                    return message.contains(problem) && SQLError.blame(error) == .work
                }
            }
            // And nothing was stored
            let count = try await database.snapshot { db in
                try await db.value("SELECT count(*) AS n FROM entitlements", as: Int.self)
            }
            #expect(count == 0)
        }
    }

    @Test func theDatabasesOwnFailuresBlameTheDatabaseOrARaceNeverTheWork() {
        #expect(SQLError.blame(SQLError.unavailable("disk full")) == .database)
        #expect(SQLError.blame(SQLError.retry("busy")) == .race)
        #expect(SQLError.blame(SQLError.unreachable("reset")) == .race)
        #expect(SQLError.blame(SQLError.decoding("column x")) == .work)
        #expect(SQLError.blame(SQLError.constraint("unique")) == .work)
    }
}
