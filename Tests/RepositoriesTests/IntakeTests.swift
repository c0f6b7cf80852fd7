import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

@Suite struct IntakeTests {
    @Test(arguments: TestBackend.allCases) func aNewReceiptIsCreated(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            // Given an empty database
            // When a receipt is accepted
            let outcomes = try await IntakeRepository(database).accept(
                [Fixture.receipt("r1", account: "a1", productID: Fixture.coins)], now: Fixture.t0)

            // Then it is created as received, never attempted, and its account exists
            #expect(outcomes == [.created(ReceiptSummary(id: "r1", status: .received))])
            let details = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(details.accountID == "a1")
            #expect(details.status == .received)
            #expect(details.attempts == 0)
            #expect(details.productID == Fixture.coins)
            #expect(details.createdAt == Fixture.t0)
            #expect(details.publishedAt == nil)
            #expect(details.transactions.isEmpty)
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances.isEmpty)
        }
    }

    @Test(arguments: TestBackend.allCases) func theSamePayloadForTheSameAccountIsADuplicateOfTheFirst(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given a stored receipt
            try await database.acceptNew([Fixture.receipt("r1", account: "a1", payload: "P")])

            // When the same payload comes again for the same account, under a new id
            let outcomes = try await IntakeRepository(database).accept(
                [Fixture.receipt("r2", account: "a1", payload: "P")], now: Fixture.t0.addingTimeInterval(5))

            // Then it resolves to the first receipt and nothing new is stored
            #expect(outcomes == [.duplicate(ReceiptSummary(id: "r1", status: .received))])
            #expect(try await ReceiptRepository(database).receipt(id: "r2") == nil)
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r1"])
        }
    }

    @Test(arguments: TestBackend.allCases) func theSamePayloadForAnotherAccountIsANewReceipt(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a receipt stored for a1
            try await database.acceptNew([Fixture.receipt("r1", account: "a1", payload: "P")])

            // When a2 sends the same payload
            let outcomes = try await IntakeRepository(database).accept(
                [Fixture.receipt("r2", account: "a2", payload: "P")], now: Fixture.t0)

            // Then it is a receipt of its own
            #expect(outcomes == [.created(ReceiptSummary(id: "r2", status: .received))])
            #expect(try await ReceiptRepository(database).receipt(id: "r2")?.accountID == "a2")
        }
    }

    @Test(arguments: TestBackend.allCases) func anIdempotencyKeyReplaysOrConflicts(_ backend: TestBackend) async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a receipt stored under idempotency key K
            try await database.acceptNew([Fixture.receipt("r1", account: "a1", payload: "P", idempotencyKey: "K")])

            // When the same request is retried under K
            let retried = try await IntakeRepository(database).accept(
                [Fixture.receipt("r2", account: "a1", payload: "P", idempotencyKey: "K")], now: Fixture.t0)
            // Then it is the first receipt
            #expect(retried == [.duplicate(ReceiptSummary(id: "r1", status: .received))])

            // When K is reused for a different request
            let reused = try await IntakeRepository(database).accept(
                [Fixture.receipt("r3", account: "a1", payload: "Q", idempotencyKey: "K")], now: Fixture.t0)
            // Then it conflicts with the first and nothing is stored
            #expect(reused == [.idempotencyConflict(existingID: "r1")])
            #expect(try await ReceiptRepository(database).receipt(id: "r3") == nil)
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r1"])

            // When another account uses the same key
            let other = try await IntakeRepository(database).accept(
                [Fixture.receipt("r4", account: "a2", payload: "Q", idempotencyKey: "K")], now: Fixture.t0)
            // Then keys are per account: it is created
            #expect(other == [.created(ReceiptSummary(id: "r4", status: .received))])
        }
    }

    @Test(arguments: TestBackend.allCases) func duplicatesInsideOneBatchResolveToTheFirst(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a batch with a repeated payload and a reused idempotency key
            let batch = [
                Fixture.receipt("r1", account: "a1", payload: "P"),
                Fixture.receipt("r2", account: "a1", payload: "P"),
                Fixture.receipt("r3", account: "a1", payload: "Q", idempotencyKey: "K"),
                Fixture.receipt("r4", account: "a1", payload: "R", idempotencyKey: "K"),
                Fixture.receipt("r5", account: "a1", payload: "Q", idempotencyKey: "K"),
                Fixture.receipt("r6", account: "a2", payload: "P"),
            ]

            // When it is accepted in one call
            let outcomes = try await IntakeRepository(database).accept(batch, now: Fixture.t0)

            // Then each repeat resolves to the first of its kind
            #expect(
                outcomes == [
                    .created(ReceiptSummary(id: "r1", status: .received)),
                    .duplicate(ReceiptSummary(id: "r1", status: .received)),
                    .created(ReceiptSummary(id: "r3", status: .received)),
                    .idempotencyConflict(existingID: "r3"),
                    .duplicate(ReceiptSummary(id: "r3", status: .received)),
                    .created(ReceiptSummary(id: "r6", status: .received)),
                ])
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r1", "r3", "r6"])
        }
    }

    @Test(arguments: TestBackend.allCases) func aReceiptTheSchemaRefusesDoesNotFailTheBatch(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a batch where one receipt's hash is not a SHA-256 and one account id is too long
            var badHash = Fixture.receipt("r2", account: "a1", payload: "Q")
            badHash.payloadHash = "xyz"
            let longAccount = Fixture.receipt("r3", account: String(repeating: "x", count: 129))
            let batch = [
                Fixture.receipt("r1", account: "a1", payload: "P"), badHash, longAccount,
                Fixture.receipt("r4", account: "a1", payload: "R"),
            ]

            // When it is accepted
            let outcomes = try await IntakeRepository(database).accept(batch, now: Fixture.t0)

            // Then the bad ones are invalid, stored nothing (not even an account), and the good ones are stored
            #expect(outcomes[0] == .created(ReceiptSummary(id: "r1", status: .received)))
            guard case .invalid = outcomes[1], case .invalid = outcomes[2] else {
                Issue.record("expected invalid outcomes, got \(outcomes)")
                return
            }
            #expect(outcomes[3] == .created(ReceiptSummary(id: "r4", status: .received)))
            #expect(try await ReceiptRepository(database).receipt(id: "r2") == nil)
            #expect(try await LedgerRepository(database).account(id: String(repeating: "x", count: 129)) == nil)
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r1", "r4"])
        }
    }

    @Test(arguments: TestBackend.allCases) func theRelayListsUnpublishedReceiptsOldestFirstUntilMarked(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            // Given three receipts accepted at different times, one a StoreKit 2 transaction
            try await database.acceptNew(
                [Fixture.receipt("r2", account: "a1", payload: "JWS", kind: .storekit2)],
                now: Fixture.t0.addingTimeInterval(2))
            try await database.acceptNew([Fixture.receipt("r1", account: "a1", payload: "B64")], now: Fixture.t0)
            try await database.acceptNew([Fixture.receipt("r3", account: "a2")], now: Fixture.t0.addingTimeInterval(3))

            // When the relay asks for unpublished receipts
            let all = try await IntakeRepository(database).unpublished(limit: 10)
            let firstTwo = try await IntakeRepository(database).unpublished(limit: 2)

            // Then they come oldest first as validate-queue messages, each payload in its own field
            #expect(all.map(\.id) == ["r1", "r2", "r3"])
            #expect(firstTwo.map(\.id) == ["r1", "r2"])
            #expect(all[0].evidence == .receipt("B64"))
            #expect(all[1].evidence == .signedTransaction("JWS"))
            #expect(all[1].submittedAt == Fixture.t0.addingTimeInterval(2))

            // When two are confirmed by the broker
            try await IntakeRepository(database).markPublished(["r1", "r2"], at: Fixture.t0.addingTimeInterval(10))

            // Then only the third is left, and the published ones are validating
            #expect(try await IntakeRepository(database).unpublished(limit: 10).map(\.id) == ["r3"])
            let r1 = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(r1.status == .validating)
            #expect(r1.publishedAt == Fixture.t0.addingTimeInterval(10))
        }
    }

    @Test(arguments: TestBackend.allCases) func theRelaySkipsReceiptsThatAlreadyEnded(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            // Given a receipt that was credited before its publish confirm was recorded (a crash in between)
            try await database.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog,
                now: Fixture.t0)

            // When the relay asks for unpublished receipts
            let unpublished = try await IntakeRepository(database).unpublished(limit: 10)

            // Then the ended receipt is not published again
            #expect(unpublished.map(\.id) == ["r2"])

            // And a late confirm keeps its final status
            try await IntakeRepository(database).markPublished(["r1"], at: Fixture.t0)
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.status == .credited)
        }
    }
}
