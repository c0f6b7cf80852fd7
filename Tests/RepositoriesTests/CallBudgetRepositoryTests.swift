import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Call budgets shared through the store: callers on separate connections (as separate
/// processes would be) never take one turn twice, on both backends.
@Suite struct CallBudgetRepositoryTests {
    let budget = CallBudget(name: "appstore/com.example.game/production/getTransactionInfo", limit: 50, share: 0.9)
    let now: Int64 = 1_800_000_000_000_000

    @Test func callersOfSeparateSQLiteHandlesShareOneBudget() async throws {
        try await withTemporaryDatabase { first, path in
            let second = try SQLiteDatabase(path: path)
            try await expectSharedTurns([CallBudgetRepository(first), CallBudgetRepository(second)])
        }
    }

    @Test func callersOnSeparatePostgreSQLConnectionsShareOneBudget() async throws {
        try await PostgresFixture.withDatabase(connections: 4) { database in
            try await database.migrate()
            try await expectSharedTurns([CallBudgetRepository(database), CallBudgetRepository(database)])
        }
    }

    /// 200 bookings at once through `stores`: every turn distinct, spaced by the budget's
    /// spacing, and counted per second.
    func expectSharedTurns(_ stores: [CallBudgetRepository]) async throws {
        let (budget, now) = (self.budget, self.now)
        let turns = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (grant, _) = try await stores[index % stores.count].reserve(
                        budget, maxWait: .seconds(60)
                    ) { now }
                    if case .go(let at) = grant { return at }
                    return nil
                }
            }
            return try await group.reduce(into: [Int64]()) { if let turn = $1 { $0.append(turn) } }
        }.sorted()
        #expect(turns.count == 200)
        #expect(turns.first == now)
        #expect(zip(turns, turns.dropFirst()).allSatisfy { $1 - $0 == budget.spacingMicros })
        let usage = try await stores[0].usage(now: now, window: 0)
        #expect(usage.count == 1)
        #expect(usage.first?.calls == 200)
        #expect(usage.first?.busiestSecond == 45)
        #expect(usage.first.map { abs($0.bookedAheadSeconds - 200.0 / 45) < 0.01 } == true)
    }

    @Test(arguments: TestBackend.allCases) func aPauseHoldsEveryCallerAndFarTurnsAreNotBooked(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let store = CallBudgetRepository(database)
            // Given Apple said 429, come back in 30 s
            try await store.pause(budget, until: now + 30_000_000)
            // Then a caller that may wait 10 s is told to come back then, and nothing is booked
            let (grant, _) = try await store.reserve(budget, maxWait: .seconds(10)) { now }
            #expect(grant == .later(atMicros: now + 30_000_000))
            #expect(try await store.usage(now: now).isEmpty)
            // And one that may wait 40 s gets the turn right after the pause
            let (later, calls) = try await store.reserve(budget, maxWait: .seconds(40)) { now }
            #expect(later == .go(atMicros: now + 30_000_000))
            #expect(calls == 1)
            let usage = try #require(try await store.usage(now: now + 30_000_000).first)
            #expect(usage.limitPerSecond == 50)
            #expect(usage.perSecond == 45)
            #expect(usage.pausedUntilMicros == 0)
        }
    }
}
