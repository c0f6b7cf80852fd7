import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// The webhook log on both backends: every outbox row visible, replays with the same id,
/// and a receiver that has been failing.
@Suite struct WebhookLogRepositoryTests {
    let t0 = Fixture.t0

    /// Three credited receipts: r1's webhook delivered, r2's given up on, r3's failing and retrying.
    func history(_ database: any SQLDatabase) async throws -> [String: String] {
        try await database.acceptNew((1...3).map { Fixture.receipt("r\($0)", account: "a\($0)") })
        _ = try await SettlementRepository(database).apply(
            (1...3).map { Fixture.valid("r\($0)", account: "a\($0)", [Fixture.purchase("t\($0)")]) },
            catalog: Fixture.catalog, now: t0)
        let ids = Dictionary(uniqueKeysWithValues: try await database.allWebhooks().map { ($0.receiptID ?? "", $0.id) })
        try await OutboxRepository(database).markDelivered(ids["r1"]!, at: t0)
        try await OutboxRepository(database).recordDeliveryFailure(
            ids["r2"]!, error: "HTTP 410", nextAttemptAt: nil, now: t0)
        try await OutboxRepository(database).recordDeliveryFailure(
            ids["r3"]!, error: "HTTP 503", nextAttemptAt: t0.addingTimeInterval(60), now: t0)
        return ids
    }

    @Test(arguments: TestBackend.allCases) func everyRowIsVisible_filteredByStatusAndAccount(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let ids = try await history(database)
            let log = WebhookLogRepository(database)

            let all = try await log.list(.init())
            #expect(Set(all.map(\.id)) == Set(ids.values))
            #expect(try await log.list(.init(status: .failed)).map(\.id) == [ids["r2"]!])
            #expect(try await log.list(.init(status: .delivered)).map(\.id) == [ids["r1"]!])
            #expect(try await log.list(.init(accountID: "a3")).map(\.lastError) == ["HTTP 503"])
            #expect(try await log.list(.init(since: t0.addingTimeInterval(1))).isEmpty)

            let shown = try #require(try await log.webhook(id: ids["r2"]!))
            #expect(shown.status == .failed)
            #expect(shown.attempts == 1)
            #expect(shown.body?.contains("receipt.credited") == true)
            #expect(try await log.webhook(id: "evt_none") == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func aReplaySendsTheSameWebhookAgain_dueNow_withFreshAttempts(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let ids = try await history(database)
            let log = WebhookLogRepository(database)
            let later = t0.addingTimeInterval(3600)

            // When the failed ones of the hour are replayed, and r1's (delivered) by id
            let failed = try await log.replayFailed(since: t0, until: later, now: later)
            #expect(failed == [ids["r2"]!])
            #expect(try await log.replay(ids: [ids["r1"]!, "evt_none"], now: later) == [ids["r1"]!])

            // Then they are due now, with the same ids and bodies, attempts counted afresh
            let due = try await OutboxRepository(database).dueWebhooks(now: later, limit: 10)
            #expect(Set(due.map(\.id)) == Set(ids.values))
            #expect(due.first { $0.id == ids["r2"] }?.attempts == 0)
            #expect(try await log.webhook(id: ids["r1"]!)?.status == .pending)
            #expect(try await log.webhook(id: ids["r1"]!)?.deliveredAt == nil)
        }
    }

    @Test(arguments: TestBackend.allCases) func aReceiverFailingForAWhileIsNamed(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let log = WebhookLogRepository(database)
            #expect(try await log.failingReceiver(for: 600, now: t0) == nil)
            _ = try await history(database)

            // Not yet ten minutes: all is well; after: r2 and r3 wait, since t0
            #expect(try await log.failingReceiver(for: 600, now: t0.addingTimeInterval(60)) == nil)
            let failing = try #require(try await log.failingReceiver(for: 600, now: t0.addingTimeInterval(900)))
            #expect(failing.waiting == 2)
            #expect(failing.since == t0)
            #expect(failing.lastError != nil)
        }
    }
}
