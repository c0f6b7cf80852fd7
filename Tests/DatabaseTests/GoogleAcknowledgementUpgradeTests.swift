import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Schema v13 on a database written at v12: every Google acknowledgement becomes a store
/// confirmation as it was (pending still due when it was, with its attempts; done; failed
/// with its reason), under the transaction its token was credited as, and the table is
/// gone; on both backends. (`GoogleAcknowledgementsUpgradeEndToEndTests` pays them.)
@Suite struct GoogleAcknowledgementUpgradeTests {
    static let t0 = Fixture.t0

    static func writeV12(_ database: any SQLDatabase) async throws {
        try await PlayAcknowledgementsAtV12.write(
            database, consumable: Fixture.coins, unlock: Fixture.noAds, now: t0,
            dueAt: t0.addingTimeInterval(3))
    }

    @Test(arguments: TestBackend.allCases) func everyAcknowledgementBecomesAStoreConfirmationAsItWas(
        _ backend: TestBackend
    ) async throws {
        let t0 = Self.t0
        let payload = PlayAcknowledgementsAtV12.payload
        // Given a database written at v12, when this program opens it (v13 runs)
        try await withTestDatabase(backend, writtenAt: 12, by: Self.writeV12) { database, _ in
            let store = ConfirmationRepository(database)
            func row(_ id: String) async throws -> ConfirmationRepository.Confirmation {
                try #require(try await store.confirmation(store: "google", transactionID: id))
            }
            // Then the pending one is still owed, as far along as it was
            let pending = try await row("GPA.pend")
            #expect(pending.payload == payload("consume", Fixture.coins, "tok-pend"))
            #expect(pending.status == .pending && pending.attempts == 2 && pending.lastError == "HTTP 503")
            #expect(pending.nextAttemptAt == t0.addingTimeInterval(3) && pending.receiptID == "r-pend")
            #expect(pending.createdAt == t0)
            // And the done one stays done, the failed one failed with its reason
            let done = try await row("GPA.done")
            #expect(done.status == .done && done.doneAt == t0.addingTimeInterval(60) && done.attempts == 1)
            #expect(done.payload == payload("acknowledge", Fixture.noAds, "tok-done"))
            let failed = try await row("GPA.fail")
            #expect(failed.status == .failed && failed.lastError == "not found" && failed.nextAttemptAt == nil)
            // And one whose transaction was never recorded is kept under its token
            #expect(try await row("tok-orphan").status == .pending)

            // And only what was due is claimed, when it is due
            let now = try await store.claimDue(stores: ["google"], now: t0, limit: 10)
            #expect(now.map(\.transactionID) == ["tok-orphan"])
            let later = try await store.claimDue(stores: ["google"], now: t0.addingTimeInterval(3), limit: 10)
            #expect(later.map(\.transactionID) == ["GPA.pend"])
            #expect(try await store.overdue(olderThan: 86_400, now: t0) == ["google": 1])

            // And the table is gone, the books intact
            await #expect(throws: (any Error).self) {
                try await database.snapshot { db in try await db.rows("SELECT * FROM google_acknowledgements") }
            }
            #expect(try await LedgerRepository(database).audit() == [])
            #expect(try await LedgerRepository(database).account(id: "a-pend")?.balances == ["coins": 100])
        }
    }
}
