import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Which CONSUMPTION_REQUESTs still wait for an answer: inside the window, not answered nor
/// given up on, oldest first, at most `limit`; on both backends.
@Suite struct ConsumptionPendingTests {
    let t0 = Fixture.t0

    @Test(arguments: TestBackend.allCases) func onlyUnansweredRequestsOfTheWindowWait(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNewNotifications(["n0"], now: t0.addingTimeInterval(-2 * 86_400))
            try await database.acceptNewNotifications(["n1", "n2", "n3", "n4"], now: t0)
            _ = try await SettlementRepository(database).apply(
                (0...4).map {
                    Fixture.notified("n\($0)", "CONSUMPTION_REQUEST", uuid: "U\($0)", Fixture.purchase("t\($0)"))
                },
                catalog: Fixture.catalog, now: t0)
            let store = ConsumptionRepository(database)
            try await store.record(
                .init(notificationID: "n2", transactionID: "t2", accountID: nil, status: .sent), now: t0)
            try await store.record(
                .init(notificationID: "n3", transactionID: "t3", accountID: nil, status: .failed, attempts: 5), now: t0)
            try await store.record(
                .init(notificationID: "n4", transactionID: "t4", accountID: nil, status: .failed, attempts: 1), now: t0)

            let since = t0.addingTimeInterval(-86_400)
            let waiting = try await store.pending(since: since, maxAttempts: 5, limit: 10)
            #expect(waiting.map(\.notificationID) == ["n1", "n4"])
            #expect(try await store.pending(since: since, maxAttempts: 5, limit: 1).map(\.notificationID) == ["n1"])
            // A longer window takes the old one in; more attempts allowed, the one given up on
            let all = try await store.pending(since: t0.addingTimeInterval(-3 * 86_400), maxAttempts: 6, limit: 10)
            #expect(all.map(\.notificationID) == ["n0", "n1", "n3", "n4"])
        }
    }

    @Test(arguments: TestBackend.allCases) func eachAppsAnswererWaitsOnlyForItsAccountsRequests(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given t1 credited to the racing game's p1, t2 to the default app's p2, and Apple
            // asking each app about its own and the default app about t3, which nobody was credited
            try await database.acceptNew([
                Fixture.receipt("r1", account: "racer/p1"), Fixture.receipt("r2", account: "p2"),
            ])
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("r1", account: "racer/p1", [Fixture.purchase("t1")]),
                    Fixture.valid("r2", account: "p2", [Fixture.purchase("t2")]),
                ], catalog: Fixture.catalog, now: t0)
            try await database.acceptNewNotifications(["n1"], now: t0, app: "racer")
            try await database.acceptNewNotifications(["n2", "n3"], now: t0)
            _ = try await SettlementRepository(database).apply(
                (1...3).map {
                    Fixture.notified("n\($0)", "CONSUMPTION_REQUEST", uuid: "U\($0)", Fixture.purchase("t\($0)"))
                },
                catalog: Fixture.catalog, now: t0)

            // Then the racing game's answerer waits for its own alone, the default app's for its
            // own, the one of no known account included
            let store = ConsumptionRepository(database)
            func pending(_ app: AppScope) async throws -> [String] {
                try await store.pending(since: t0.addingTimeInterval(-60), maxAttempts: 5, limit: 10, app: app)
                    .map(\.notificationID)
            }
            #expect(try await pending(AppScope(app: "racer", isDefault: false)) == ["n1"])
            #expect(try await pending(AppScope(app: "puzzle", isDefault: true)) == ["n2", "n3"])
            #expect(try await pending(.single) == ["n1", "n2", "n3"])
        }
    }
}
