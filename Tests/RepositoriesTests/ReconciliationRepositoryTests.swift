import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Which of Apple's listed notifications we never stored, and the runs' record, on both backends.
@Suite struct ReconciliationRepositoryTests {
    @Test(arguments: TestBackend.allCases) func aNotificationIsKnownByItsPayloadOrByItsAppliedUUID(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given n1 stored (and applied, so its UUID is known) and n2 stored, not yet applied
            try await database.acceptNewNotifications(["n1", "n2"])
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: Fixture.t0))],
                catalog: Fixture.catalog, now: Fixture.t0)
            let store = ReconciliationRepository(database)
            let stored = { (id: String) in Fixture.hash("signed-payload-of-\(id)") }

            // When Apple lists n1 signed anew, n2 as stored, and one we never saw
            let unknown = try await store.unknown([
                .init(payloadHash: Fixture.hash("n1 signed again"), notificationUUID: "U1"),
                .init(payloadHash: stored("n2"), notificationUUID: "U2"),
                .init(payloadHash: Fixture.hash("never seen"), notificationUUID: "U3"),
                .init(payloadHash: Fixture.hash("unreadable"), notificationUUID: nil),
            ])

            // Then only the last two are missing
            #expect(unknown.map(\.notificationUUID) == ["U3", nil])
        }
    }

    @Test(arguments: TestBackend.allCases) func theNextScheduledRunStartsWhereTheLastCompleteOneEnded(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let store = ReconciliationRepository(database)
            let t0 = Fixture.t0
            #expect(try await store.coveredUntil() == nil)
            #expect(try await store.latest() == nil)

            // Given a complete run, then a dry run and a failed run that reach further
            let complete = ReconciliationRun(
                trigger: .schedule, dryRun: false, windowStart: t0, windowEnd: t0.addingTimeInterval(3600),
                examined: 3, missing: 1, fed: 1, startedAt: t0, finishedAt: t0.addingTimeInterval(1))
            try await store.record(complete)
            var dry = complete
            dry.dryRun = true
            dry.windowEnd = t0.addingTimeInterval(7200)
            try await store.record(dry)
            var failed = complete
            failed.windowEnd = t0.addingTimeInterval(9000)
            failed.error = "Apple answered 401"
            try await store.record(failed)

            // Then the next one starts at the complete run's end, and the console shows the latest
            #expect(try await store.coveredUntil() == t0.addingTimeInterval(3600))
            #expect(try await store.latest() == failed)
        }
    }

    @Test(arguments: TestBackend.allCases) func eachAppsScheduledRunStartsWhereItsOwnLastOneEnded(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given the default app's run to t0 + 1 h, and the racing game's reaching further
            let t0 = Fixture.t0
            let run = ReconciliationRun(
                trigger: .schedule, dryRun: false, windowStart: t0, windowEnd: t0.addingTimeInterval(3600),
                examined: 0, missing: 0, fed: 0, startedAt: t0, finishedAt: t0.addingTimeInterval(1))
            try await ReconciliationRepository(database).record(run)
            var racerRun = run
            racerRun.windowEnd = t0.addingTimeInterval(7200)
            try await ReconciliationRepository(database, app: "racer").record(racerRun)

            // Then each app goes on from its own, and an app that never ran starts afresh
            #expect(try await ReconciliationRepository(database).coveredUntil() == t0.addingTimeInterval(3600))
            #expect(
                try await ReconciliationRepository(database, app: "racer").coveredUntil() == t0.addingTimeInterval(7200)
            )
            #expect(try await ReconciliationRepository(database, app: "chess").coveredUntil() == nil)
        }
    }
}
