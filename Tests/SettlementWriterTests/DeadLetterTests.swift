import Database
import Foundation
import PipelineCore
import PipelineTesting
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseSQLite
@testable import DatabaseTesting
@testable import Repositories

@Suite struct DeadLetterTests {
    /// A database with one accepted receipt `r1` of account `alice`.
    func withReceipt(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withTemporaryDatabase { database in
            _ = try await IntakeRepository(database).accept([Fixture.receipt("r1", account: "alice")], now: Fixture.t0)
            try await body(database)
        }
    }

    @Test func archivingStoresTheLetterAndMarksTheReceiptDeadWithAWebhook() async throws {
        try await withReceipt { database in
            // When a dead letter for r1 is archived
            let results = try await DeadLetterRepository(database).archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)

            // Then the receipt is dead with the letter's reason, and its account is on the letter
            #expect(results == [.applied(receiptID: "r1", status: .dead, reason: "attempts_exhausted: http_503")])
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.status == .dead)
            let stored = try #require(try await DeadLetterRepository(database).deadLetter(id: "dl_1"))
            #expect(stored.accountID == "alice")
            #expect(stored.status == .waiting)
            #expect(stored.body == Data("{}".utf8))
            #expect(try await database.pendingWebhookTypes(receiptID: "r1") == ["receipt.dead"])
        }
    }

    @Test func aRedeliveredLetterIsArchivedOnce() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            let again = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            #expect(again == [nil])
            #expect(try await deadLetters.deadLetters(DeadLetterQuery()).count == 1)
        }
    }

    @Test(arguments: TestBackend.allCases) func aLetterWithoutAReceiptIsArchivedForAnOperator(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let results = try await DeadLetterRepository(database).archive(
                [Fixture.letter("dl_p", receipt: nil, reason: "unparseable_message")], catalog: Fixture.catalog,
                now: Fixture.t0)
            #expect(results == [nil])
            #expect(
                try await DeadLetterRepository(database).deadLetterGroups(DeadLetterQuery()).map(\.reason) == [
                    "unparseable_message"
                ])
        }
    }

    @Test(arguments: TestBackend.allCases) func groupsAndFiltersSelectByReasonAccountAndAge(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await IntakeRepository(database).accept(
                [
                    Fixture.receipt("r1", account: "alice"), Fixture.receipt("r2", account: "bob"),
                    Fixture.receipt("r3", account: "bob"),
                ],
                now: Fixture.t0)
            _ = try await deadLetters.archive(
                [
                    Fixture.letter("dl_1", receipt: "r1", reason: "a", deadAt: Fixture.t0),
                    Fixture.letter("dl_2", receipt: "r2", reason: "a", deadAt: Fixture.t0.addingTimeInterval(3600)),
                    Fixture.letter("dl_3", receipt: "r3", reason: "b", deadAt: Fixture.t0.addingTimeInterval(7200)),
                ], catalog: Fixture.catalog, now: Fixture.t0)

            let groups = try await deadLetters.deadLetterGroups(DeadLetterQuery())
            #expect(
                groups == [
                    DeadLetterGroup(
                        reason: "a", count: 2, firstDeadAt: Fixture.t0, lastDeadAt: Fixture.t0.addingTimeInterval(3600)),
                    DeadLetterGroup(
                        reason: "b", count: 1, firstDeadAt: Fixture.t0.addingTimeInterval(7200),
                        lastDeadAt: Fixture.t0.addingTimeInterval(7200)),
                ])
            #expect(try await deadLetters.deadLetters(DeadLetterQuery(accountID: "bob")).map(\.id) == ["dl_3", "dl_2"])
            #expect(try await deadLetters.deadLetters(DeadLetterQuery(reason: "a")).map(\.id) == ["dl_2", "dl_1"])
            #expect(
                try await deadLetters.deadLetterIDs(DeadLetterQuery(deadBefore: Fixture.t0.addingTimeInterval(3600)))
                    == [
                        "dl_1"
                    ]
            )
            #expect(
                try await deadLetters.deadLetterIDs(DeadLetterQuery(deadSince: Fixture.t0.addingTimeInterval(3600)))
                    == [
                        "dl_2", "dl_3",
                    ])
        }
    }

    @Test func replayReopensTheDeadReceiptSoThatItsNextVerdictApplies() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)

            // When a replay begins
            let letter = try await deadLetters.beginReplay(id: "dl_1", by: "alice", now: Fixture.t0)

            // Then the letter is replaying and the receipt validating again, reason cleared
            #expect(letter.status == .replaying)
            let receipt = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(receipt.status == .validating)
            #expect(receipt.reason == nil)

            // And the replayed message's verdict credits it, with a receipt.credited webhook after the receipt.dead one
            let verdict = Verdict(
                outcome: .valid, receiptID: "r1", accountID: "alice", attempts: 1, environment: "Production",
                transactions: [
                    VerifiedTransaction(transactionID: "t1", originalTransactionID: "t1", productID: Fixture.coins)
                ],
                decidedAt: Fixture.t0)
            #expect(
                try await SettlementRepository(database).apply([verdict], catalog: Fixture.catalog, now: Fixture.t0)
                    == [
                        .applied(receiptID: "r1", status: .credited, reason: nil)
                    ])
            #expect(try await LedgerRepository(database).account(id: "alice")?.balances["coins"] == 100)
            #expect(
                try await database.pendingWebhookTypes(receiptID: "r1") == ["receipt.dead", "receipt.credited"])

            try await deadLetters.finishReplay(id: "dl_1", by: "alice", now: Fixture.t0)
            #expect(try await deadLetters.deadLetter(id: "dl_1")?.status == .replayed)
            // And a replayed letter is not replayed or discarded again
            await #expect(throws: DeadLetterError.self) {
                try await deadLetters.beginReplay(id: "dl_1", by: "bob", now: Fixture.t0)
            }
            await #expect(throws: DeadLetterError.self) {
                try await deadLetters.discard(id: "dl_1", by: "bob", reason: "x", now: Fixture.t0)
            }
        }
    }

    @Test func aReplayedReceiptThatDiesAgainIsArchivedAgain() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            _ = try await deadLetters.beginReplay(id: "dl_1", by: "alice", now: Fixture.t0)
            try await deadLetters.finishReplay(id: "dl_1", by: "alice", now: Fixture.t0)

            let results = try await deadLetters.archive(
                [Fixture.letter("dl_2", receipt: "r1", reason: "again")], catalog: Fixture.catalog, now: Fixture.t0)
            #expect(results == [.applied(receiptID: "r1", status: .dead, reason: "again")])
            #expect(try await deadLetters.deadLetters(receiptID: "r1").map(\.id) == ["dl_1", "dl_2"])
        }
    }

    @Test func anAbortedReplayLeavesEverythingAsItWas() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            _ = try await deadLetters.beginReplay(id: "dl_1", by: "alice", now: Fixture.t0)
            try await deadLetters.abortReplay(id: "dl_1", now: Fixture.t0)
            #expect(try await deadLetters.deadLetter(id: "dl_1")?.status == .waiting)
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.status == .dead)
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.reason == "attempts_exhausted: http_503")
        }
    }

    @Test func discardRecordsWhoAndWhyOnTheLetterAndTheReceipt() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            let letter = try await deadLetters.discard(
                id: "dl_1", by: "alice", reason: "test purchase", now: Fixture.t0)
            #expect(letter.status == .discarded)
            #expect(letter.resolvedBy == "alice")
            #expect(letter.resolvedReason == "test purchase")
            let receipt = try #require(try await ReceiptRepository(database).receipt(id: "r1"))
            #expect(receipt.status == .dead)
            #expect(receipt.reason == "discarded by alice: test purchase")
            #expect(try await deadLetters.deadLetters(DeadLetterQuery()).isEmpty)
        }
    }

    @Test func refusedActionsChangeNothing() async throws {
        try await withReceipt { database in
            let deadLetters = DeadLetterRepository(database)
            _ = try await deadLetters.archive(
                [Fixture.letter("dl_1", receipt: "r1")], catalog: Fixture.catalog, now: Fixture.t0)
            // An unknown id, a blank reason, a blank operator
            await #expect(throws: DeadLetterError(.unknownLetter, "no dead letter with id nope")) {
                try await deadLetters.beginReplay(id: "nope", by: "alice", now: Fixture.t0)
            }
            await #expect(throws: DeadLetterError.self) {
                try await deadLetters.discard(id: "dl_1", by: "alice", reason: "  ", now: Fixture.t0)
            }
            await #expect(throws: DeadLetterError.self) {
                try await deadLetters.discard(id: "dl_1", by: "", reason: "why", now: Fixture.t0)
            }
            #expect(try await deadLetters.deadLetter(id: "dl_1")?.status == .waiting)
            #expect(try await ReceiptRepository(database).receipt(id: "r1")?.reason == "attempts_exhausted: http_503")
        }
    }

    @Test(arguments: TestBackend.allCases) func anAppleNotificationDiesIsReopenedByAReplayAndDiscardedTheSameWay(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let deadLetters = DeadLetterRepository(database)
            let notifications = NotificationRepository(database)
            // Given an accepted App Store notification that died
            let accepted = try await notifications.acceptNotification(
                id: "n1", app: "", payload: "signed-payload", payloadHash: Fixture.hash("signed-payload"),
                now: Fixture.t0)
            #expect(accepted.created)
            let results = try await deadLetters.archive(
                [Fixture.letter("dl_n", receipt: "n1")], catalog: Fixture.catalog, now: Fixture.t0)
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .dead, reason: "attempts_exhausted: http_503")
                ])

            // When its replay begins, it is validating again
            _ = try await deadLetters.beginReplay(id: "dl_n", by: "alice", now: Fixture.t0)
            #expect(try await notifications.notification(id: "n1")?.status == .validating)
            #expect(try await notifications.notification(id: "n1")?.reason == nil)

            // And discarding the letter meanwhile ends it dead, saying who and why
            _ = try await deadLetters.discard(id: "dl_n", by: "alice", reason: "sandbox noise", now: Fixture.t0)
            #expect(try await notifications.notification(id: "n1")?.status == .dead)
            #expect(try await notifications.notification(id: "n1")?.reason == "discarded by alice: sandbox noise")
        }
    }

    @Test func searchFindsReceiptsByIdAccountAndAppleTransaction() async throws {
        try await withReceipt { database in
            let receipts = ReceiptRepository(database)
            let verdict = Verdict(
                outcome: .valid, receiptID: "r1", accountID: "alice", attempts: 1, environment: "Production",
                transactions: [
                    VerifiedTransaction(transactionID: "t-42", originalTransactionID: "t-42", productID: Fixture.coins)
                ],
                decidedAt: Fixture.t0)
            _ = try await SettlementRepository(database).apply([verdict], catalog: Fixture.catalog, now: Fixture.t0)
            #expect(try await receipts.searchReceipts("r1").map(\.id) == ["r1"])
            #expect(try await receipts.searchReceipts("alice").map(\.id) == ["r1"])
            #expect(try await receipts.searchReceipts("t-42").map(\.id) == ["r1"])
            #expect(try await receipts.searchReceipts("nobody").isEmpty)
            #expect(
                try await receipts.throughput(since: Fixture.t0.addingTimeInterval(-60))
                    == Throughput(received: 1, credited: 1, deadLettered: 0))
            // The account page links an order to this search
            try await database.acceptNew([Fixture.receipt("r2", account: "bob", orderID: "order-9")])
            #expect(try await receipts.searchReceipts("order-9").map(\.id) == ["r2"])
        }
    }
}

extension SQLiteDatabase {
    /// The types of a receipt's outbox rows, oldest first.
    func pendingWebhookTypes(receiptID: String) async throws -> [String] {
        try await snapshot { db in
            try await db.rows("SELECT type FROM notification_outbox WHERE receipt_id = ? ORDER BY rowid", [receiptID])
                .map { try $0.get("type", as: String.self) }
        }
    }
}
