import Database
import DatabasePostgres
import PipelineTesting
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A fulfiller's batch bigger than PostgreSQL's lock table: a backlog of packed messages after
/// a power cut once asked for 19,569 advisory locks in one transaction, and every session's
/// next lock failed with "out of shared memory". Settled in parts
/// (``SettlementRepository/mostPerTransaction``), all of it is credited.
@Suite struct PostgresLockTableTests {
    @Test func aBatchNeedingMoreLocksThanTheServerHoldsIsSettledInPartsAndAllOfItCredited() async throws {
        try await PostgresFixture.withDatabase { database in
            try await database.migrate()
            let room = try await database.snapshot { db in
                try await db.value(
                    "SELECT current_setting('max_locks_per_transaction')::int * current_setting('max_connections')::int AS n",
                    as: Int.self)
            }
            // About eight locks a verdict (its receipt, three transactions and their originals,
            // its account): well past the server's lock table.
            let count = 4_000
            try await database.acceptNew((0..<count).map { Fixture.receipt("r\($0)", account: "a\($0)") })
            let verdicts = (0..<count).map { index in
                Fixture.valid("r\(index)", account: "a\(index)", (0..<3).map { Fixture.purchase("t\(index)-\($0)") })
            }
            let results = try await SettlementRepository(database).apply(
                verdicts, catalog: Fixture.catalog, now: Fixture.t0)
            print("lock table: \(room ?? 0) locks for every session; \(count) verdicts settled")
            #expect(results.count == count)
            #expect(
                results.allSatisfy {
                    if case .applied(_, .credited, _) = $0 { true } else { false }
                })
        }
    }
}
