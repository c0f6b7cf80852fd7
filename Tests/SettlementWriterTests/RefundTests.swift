import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// REFUND, REVOKE, REFUND_REVERSED and legacy cancellations: a transaction's credit is
/// taken back once, from the account it credited.
@Suite struct RefundTests {
    let catalog = Fixture.catalog
    let t0 = Fixture.t0

    /// a1 credited 100 coins for t1 by receipt r1.
    func withCreditedCoins(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withTemporaryDatabase { database in
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            let credited = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)
            guard credited == [.applied(receiptID: "r1", status: .credited, reason: nil)] else {
                throw FixtureError("not credited: \(credited)")
            }
            try await body(database)
        }
    }

    @Test func aRefundDebitsExactlyTheCreditOnceHoweverOftenItArrives() async throws {
        try await withCreditedCoins { database in
            try await database.acceptNewNotifications(["n1", "n2", "n3"])
            let refund = Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))
            let later = t0.addingTimeInterval(60)

            // When the same REFUND is applied three times in one batch
            let results = try await SettlementRepository(database).apply(
                [refund, refund, refund], catalog: catalog, now: later)

            // Then it applied once and the redeliveries changed nothing
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: nil),
                    .notificationAlreadyFinal(notificationID: "n1", status: .applied),
                    .notificationAlreadyFinal(notificationID: "n1", status: .applied),
                ])

            // When Apple sends it again signed anew (another row, the same UUID), and another
            // notification (another UUID) refunds the same transaction
            let again = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("n2", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0)),
                    Fixture.notified("n3", "REFUND", uuid: "U3", Fixture.purchase("t1", cancelled: t0)),
                ], catalog: catalog, now: later)

            // Then neither debits again
            #expect(
                again == [
                    .notificationApplied(notificationID: "n2", status: .applied, reason: "duplicate of n1"),
                    .notificationApplied(notificationID: "n3", status: .applied, reason: "already_refunded"),
                ])

            // And the account is back to zero: a purchase and one refund, the balance their sum
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 0])
            #expect(account.ledger.map(\.kind) == [.refund, .purchase])
            #expect(account.ledger.map(\.amount) == [-100, 100])
            #expect(account.ledger.first?.notificationID == "n1")
            #expect(account.ledger.first?.transactionID == "t1")
            #expect(account.ledger.reduce(0) { $0 + $1.amount } == account.balances["coins"])
            #expect(try await LedgerRepository(database).audit() == [])

            // And the notification shows what it was and whom it changed
            let n1 = try #require(try await NotificationRepository(database).notification(id: "n1"))
            #expect(n1.status == .applied)
            #expect(n1.notificationUUID == "U1")
            #expect(n1.type == "REFUND")
            #expect(n1.transactionID == "t1")
            #expect(n1.accountID == "a1")
            #expect(try await NotificationRepository(database).notification(id: "n2")?.notificationUUID == nil)

            // And one purchase.refunded webhook says so, naming the receipt that credited it
            let refunds = try await database.allWebhooks().filter { $0.type == .purchaseRefunded }
            #expect(refunds.count == 1)
            let event = try #require(refunds.first)
            #expect(event.accountID == "a1")
            #expect(event.receiptID == "r1")
            #expect(event.notificationID == "n1")
            let body = try Fixture.json(event.body)
            #expect(body["type"] as? String == "purchase.refunded")
            #expect(body["receipt_id"] as? String == "r1")
            #expect(body["notification_id"] as? String == "n1")
            let data = try #require(body["data"] as? [String: Any])
            #expect(data["transaction_id"] as? String == "t1")
            #expect(data["original_transaction_id"] as? String == "t1")
            #expect(data["product_id"] as? String == Fixture.coins)
            #expect(data["currency"] as? String == "coins")
            #expect(data["amount"] as? Int == -100)
            #expect(data["notification_uuid"] as? String == "U1")
            #expect(data.keys.contains("entitlement") && data["entitlement"] is NSNull)
        }
    }

    @Test func aRevocationDebitsOnceAndARefundAfterItChangesNothing() async throws {
        try await withCreditedCoins { database in
            try await database.acceptNewNotifications(["n1", "n2"])

            // When Apple revokes t1, and then also reports a refund of it
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("n1", "REVOKE", uuid: "U1", Fixture.purchase("t1", cancelled: t0)),
                    Fixture.notified("n2", "REFUND", uuid: "U2", Fixture.purchase("t1", cancelled: t0)),
                ], catalog: catalog, now: t0)

            // Then one debit, of kind revoke
            #expect(
                results[1] == .notificationApplied(notificationID: "n2", status: .applied, reason: "already_refunded"))
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == ["coins": 0])
            #expect(account.ledger.map(\.kind) == [.revoke, .purchase])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aRefundBeforeThePurchaseIsCreditedNetsToZero(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            try await database.acceptNewNotifications(["n1"])
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // When the REFUND of t1 arrives before any receipt credited it
            let refund = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))],
                catalog: catalog, now: t0)
            #expect(
                refund == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: "refunded_before_credit")
                ])

            // And then the purchase arrives in a valid receipt, without a cancellation date
            let purchase = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog,
                now: t0.addingTimeInterval(60))

            // Then it credits nothing: the account nets to zero
            #expect(purchase == [.applied(receiptID: "r1", status: .rejected, reason: "refunded")])
            let account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.balances == [:])
            #expect(account.ledger.isEmpty)
            #expect(try await database.allWebhooks().filter { $0.type == .purchaseRefunded }.isEmpty)
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }

    @Test func aReversedRefundCreditsAgainOnce() async throws {
        try await withCreditedCoins { database in
            let ledger = LedgerRepository(database)
            let settlement = SettlementRepository(database)
            try await database.acceptNewNotifications(["n1", "n2", "n3"])
            _ = try await settlement.apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))],
                catalog: catalog, now: t0)
            #expect(try await ledger.account(id: "a1")?.balances == ["coins": 0])

            // When Apple reverses the refund, and a second reversal (another UUID) follows
            let results = try await settlement.apply(
                [
                    Fixture.notified("n2", "REFUND_REVERSED", uuid: "U2", Fixture.purchase("t1")),
                    Fixture.notified("n3", "REFUND_REVERSED", uuid: "U3", Fixture.purchase("t1")),
                ], catalog: catalog, now: t0)

            // Then the coins come back once
            #expect(
                results == [
                    .notificationApplied(notificationID: "n2", status: .applied, reason: nil),
                    .notificationApplied(notificationID: "n3", status: .applied, reason: "not_refunded"),
                ])
            let account = try #require(try await ledger.account(id: "a1"))
            #expect(account.balances == ["coins": 100])
            #expect(account.ledger.map(\.kind) == [.refundReversal, .refund, .purchase])
            #expect(account.ledger.map(\.amount) == [100, -100, 100])
            #expect(try await ledger.audit() == [])

            // And one purchase.refund_reversed webhook with the amount credited again
            let events = try await database.allWebhooks().filter { $0.type == .purchaseRefundReversed }
            #expect(events.count == 1)
            let data = try Fixture.data(events.first)
            #expect(data["amount"] as? Int == 100)
            #expect(data["notification_uuid"] as? String == "U2")

            // And a refund after the reversal is not debited a second time
            try await database.acceptNewNotifications(["n4"])
            let again = try await settlement.apply(
                [Fixture.notified("n4", "REFUND", uuid: "U4", Fixture.purchase("t1", cancelled: t0))],
                catalog: catalog, now: t0)
            #expect(again == [.notificationApplied(notificationID: "n4", status: .applied, reason: "already_refunded")])
            #expect(try await ledger.account(id: "a1")?.balances == ["coins": 100])
        }
    }

    @Test(arguments: TestBackend.allCases) func aRefundEndsTheEntitlementAndItsReversalGrantsItAgain(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let settlement = SettlementRepository(database)
            // Given a permanent unlock bought by a1
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            _ = try await settlement.apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1", product: Fixture.noAds)])],
                catalog: catalog, now: t0)
            try await database.acceptNewNotifications(["n1", "n2"])
            let revoked = t0.addingTimeInterval(3600)

            // When it is refunded, revoked an hour after t0
            _ = try await settlement.apply(
                [
                    Fixture.notified(
                        "n1", "REFUND", uuid: "U1", Fixture.purchase("t1", product: Fixture.noAds, cancelled: revoked))
                ],
                catalog: catalog, now: t0.addingTimeInterval(7200))

            // Then the entitlement ended at the revocation date; no ledger entry moved
            var account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.entitlements == [.init(name: "noads", expiresAt: revoked)])
            #expect(account.ledger.isEmpty)
            let data = try Fixture.data(
                try await database.allWebhooks().first { $0.type == .purchaseRefunded })
            #expect(data["entitlement"] as? String == "noads")
            #expect(data["amount"] is NSNull)

            // When the refund is reversed
            _ = try await settlement.apply(
                [Fixture.notified("n2", "REFUND_REVERSED", uuid: "U2", Fixture.purchase("t1", product: Fixture.noAds))],
                catalog: catalog, now: t0.addingTimeInterval(9000))

            // Then it is held for ever again
            account = try #require(try await LedgerRepository(database).account(id: "a1"))
            #expect(account.entitlements == [.init(name: "noads", expiresAt: nil)])
        }
    }

    @Test(arguments: TestBackend.allCases) func aReversalOfARefundBeforeCreditLetsThePurchaseCredit(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            try await database.acceptNewNotifications(["n1", "n2"])
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])

            // Given a refund recorded before the purchase was credited, then reversed
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0)),
                    Fixture.notified("n2", "REFUND_REVERSED", uuid: "U2", Fixture.purchase("t1")),
                ], catalog: catalog, now: t0)
            #expect(
                try await NotificationRepository(database).notification(id: "n2")?.reason
                    == "refund_forgotten_before_credit")

            // When the purchase arrives
            let results = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: catalog, now: t0)

            // Then it credits, as if never refunded
            #expect(results == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            #expect(try await LedgerRepository(database).account(id: "a1")?.balances == ["coins": 100])
            #expect(try await LedgerRepository(database).audit() == [])
        }
    }

    @Test func aLegacyCancellationOfACreditedTransactionDebitsOnce() async throws {
        try await withCreditedCoins { database in
            let ledger = LedgerRepository(database)
            // Given a1's t1 was credited by r1; then receipts of a1 and of a2 list t1 as cancelled
            try await database.acceptNew([
                Fixture.receipt("r2", account: "a1"), Fixture.receipt("r3", account: "a2"),
                Fixture.receipt("r4", account: "a1"),
            ])

            // When they are applied
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.valid("r2", account: "a1", [Fixture.purchase("t1", cancelled: t0)]),
                    Fixture.valid("r3", account: "a2", [Fixture.purchase("t1", cancelled: t0)]),
                    Fixture.valid(
                        "r4", account: "a1", [Fixture.purchase("t1", cancelled: t0), Fixture.purchase("t4")]),
                ], catalog: catalog, now: t0.addingTimeInterval(60))

            // Then t1's 100 coins are taken back from a1 once, and t4 credited
            #expect(
                results == [
                    .applied(receiptID: "r2", status: .rejected, reason: "refunded"),
                    .applied(receiptID: "r3", status: .rejected, reason: "refunded"),
                    .applied(receiptID: "r4", status: .credited, reason: nil),
                ])
            let account = try #require(try await ledger.account(id: "a1"))
            #expect(account.balances == ["coins": 100])
            #expect(account.ledger.map(\.kind) == [.purchase, .refund, .purchase])
            #expect(account.ledger.map(\.amount) == [100, -100, 100])
            #expect(account.ledger[1].receiptID == "r2")
            #expect(try await ledger.account(id: "a2")?.balances == [:])
            #expect(try await ReceiptRepository(database).receipt(id: "r2")?.transactions.map(\.outcome) == [.refunded])
            #expect(try await ledger.audit() == [])

            // And one purchase.refunded webhook, to a1, naming the receipt that credited t1
            let refunds = try await database.allWebhooks().filter { $0.type == .purchaseRefunded }
            #expect(refunds.map(\.accountID) == ["a1"])
            let body = try Fixture.json(try #require(refunds.first).body)
            #expect(body["receipt_id"] as? String == "r1")
            #expect(body.keys.contains("notification_id") && body["notification_id"] is NSNull)
        }
    }

    @Test func theAuditFindsDebitsBeyondTheCreditAndARefundWithoutItsDebit() async throws {
        try await withCreditedCoins { database in
            try await database.acceptNew([Fixture.receipt("r2", account: "a1")])
            _ = try await SettlementRepository(database).apply(
                [Fixture.valid("r2", account: "a1", [Fixture.purchase("t2")])], catalog: catalog, now: t0)
            try await database.acceptNewNotifications(["n1"])
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "REFUND", uuid: "U1", Fixture.purchase("t1", cancelled: t0))],
                catalog: catalog, now: t0)
            #expect(try await LedgerRepository(database).audit() == [])

            let secondDebit = [1, 2].map { step in
                """
                INSERT INTO ledger_entries (account_id, currency, amount, kind, transaction_id, created_at, step)
                VALUES ('a1', 'coins', -100, 'revoke', 't1', '2025-06-15 15:06:40.000', \(step))
                """
            }
            // The schema refuses a second debit of t1 at the step of its first
            await #expect(throws: SQLError.self) {
                try await database.transaction { db in try await db.execute(secondDebit[0]) }
            }
            // Given someone debited t1 again by hand, as a next step, beyond what it credited,
            // and marked t2 refunded by hand
            try await database.transaction { db in
                try await db.execute(secondDebit[1])
                try await db.execute("UPDATE balances SET amount = amount - 100 WHERE account_id = 'a1'")
                try await db.execute("UPDATE store_transactions SET state = 'refunded' WHERE transaction_id = 't2'")
            }

            // When the books are audited
            let findings = try await LedgerRepository(database).audit()

            // Then both are reported, and nothing else
            #expect(Set(findings.map(\.kind)) == [.transactionRefundedTwice, .refundWithoutDebit])
            #expect(findings.first { $0.kind == .transactionRefundedTwice }?.transactionID == "t1")
            #expect(findings.first { $0.kind == .refundWithoutDebit }?.transactionID == "t2")
        }
    }
}
