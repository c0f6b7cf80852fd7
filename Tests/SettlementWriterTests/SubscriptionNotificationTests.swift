import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// DID_RENEW, SUBSCRIBED, EXPIRED, GRACE_PERIOD_EXPIRED, DID_FAIL_TO_RENEW: a subscription's
/// entitlement follows Apple, on the account the subscription is bound to.
@Suite struct SubscriptionNotificationTests {
    let catalog = Fixture.catalog
    let t0 = Fixture.t0
    let day: TimeInterval = 86_400

    /// a1 bought the monthly VIP (original transaction o1) through receipt rA, until t0 + 30 days.
    func withSubscription(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withTemporaryDatabase { database in
            try await database.acceptNew([Fixture.receipt("rA", account: "a1")])
            let bought = try await SettlementRepository(database).apply(
                [
                    Fixture.valid(
                        "rA", account: "a1",
                        [Fixture.purchase("o1", product: Fixture.vip, expires: t0.addingTimeInterval(30 * day))])
                ], catalog: catalog, now: t0)
            guard bought == [.applied(receiptID: "rA", status: .credited, reason: nil)] else {
                throw FixtureError("not bought: \(bought)")
            }
            try await body(database)
        }
    }

    func renewal(_ id: String, expires: Date, original: String = "o1") -> VerifiedTransaction {
        Fixture.purchase(id, product: Fixture.vip, expires: expires, original: original)
    }

    @Test func aRenewalExtendsTheBoundAccountOnceWhoeverSendsIt() async throws {
        try await withSubscription { database in
            let ledger = LedgerRepository(database)
            let settlement = SettlementRepository(database)
            let february = t0.addingTimeInterval(60 * day)
            let march = t0.addingTimeInterval(90 * day)
            try await database.acceptNewNotifications(["n1", "n2"])

            // When DID_RENEW reports the renewal t2 until February (the verdict naming another
            // account, as a confused sender might)
            let renewed = try await settlement.apply(
                [Fixture.notified("n1", "DID_RENEW", uuid: "U1", renewal("t2", expires: february), account: "a2")],
                catalog: catalog, now: t0)

            // Then a1's entitlement runs to February, and nothing went to a2
            #expect(renewed == [.notificationApplied(notificationID: "n1", status: .applied, reason: nil)])
            #expect(try await ledger.account(id: "a1")?.entitlements == [.init(name: "vip", expiresAt: february)])
            #expect(try await ledger.account(id: "a2") == nil)
            #expect(try await NotificationRepository(database).notification(id: "n1")?.accountID == "a1")
            let events = try await database.allWebhooks().filter { $0.type == .subscriptionRenewed }
            #expect(events.map(\.accountID) == ["a1"])
            let body = try Fixture.json(try #require(events.first).body)
            #expect(body["receipt_id"] is NSNull)
            #expect(body["notification_id"] as? String == "n1")
            let data = try #require(body["data"] as? [String: Any])
            #expect(data["transaction_id"] as? String == "t2")
            #expect(data["original_transaction_id"] as? String == "o1")
            #expect(data["entitlement"] as? String == "vip")
            #expect(data["expires_at"] as? String == Timestamp.format(february))

            // When the same renewal comes again in another notification
            let again = try await settlement.apply(
                [Fixture.notified("n2", "DID_RENEW", uuid: "U2", renewal("t2", expires: february))],
                catalog: catalog, now: t0)

            // Then it credits nothing more
            #expect(again == [.notificationApplied(notificationID: "n2", status: .applied, reason: "already_credited")])
            #expect(try await database.allWebhooks().filter { $0.type == .subscriptionRenewed }.count == 1)

            // When a2 sends a receipt that carries the next renewal of a1's subscription
            try await database.acceptNew([Fixture.receipt("rB", account: "a2")])
            let viaB = try await settlement.apply(
                [Fixture.valid("rB", account: "a2", [renewal("t3", expires: march)])], catalog: catalog, now: t0)

            // Then it still goes to a1, and a2's receipt credited a2 nothing
            #expect(viaB == [.applied(receiptID: "rB", status: .rejected, reason: "bound_to_another_account")])
            #expect(try await ledger.account(id: "a1")?.entitlements == [.init(name: "vip", expiresAt: march)])
            #expect(try await ledger.account(id: "a2")?.entitlements == [])
            #expect(
                try await ReceiptRepository(database).receipt(id: "rB")?.transactions.map(\.outcome) == [
                    .boundToAnotherAccount
                ])
            let renewedViaB = try await database.allWebhooks().filter { $0.type == .subscriptionRenewed }.last
            #expect(renewedViaB?.accountID == "a1")
            #expect(renewedViaB?.receiptID == "rB")
            #expect(try await ledger.audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func anUnboundRenewalChangesNothingUntilAReceiptBindsIt(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let expiry = t0.addingTimeInterval(30 * day)
            try await database.acceptNewNotifications(["n1"])

            // When DID_RENEW arrives for a subscription no account has bought here
            let results = try await SettlementRepository(database).apply(
                [Fixture.notified("n1", "DID_RENEW", uuid: "U1", renewal("t2", expires: expiry, original: "o9"))],
                catalog: catalog, now: t0)

            // Then it is applied as unbound, and nothing changed
            #expect(results == [.notificationApplied(notificationID: "n1", status: .applied, reason: "unbound")])
            #expect(try await database.allWebhooks().isEmpty)
            #expect(try await NotificationRepository(database).notification(id: "n1")?.accountID == nil)

            // When the player's receipt carries that transaction
            try await database.acceptNew([Fixture.receipt("r1", account: "a1")])
            let credited = try await SettlementRepository(database).apply(
                [Fixture.valid("r1", account: "a1", [renewal("t2", expires: expiry, original: "o9")])],
                catalog: catalog, now: t0)

            // Then the receipt binds and credits it
            #expect(credited == [.applied(receiptID: "r1", status: .credited, reason: nil)])
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: expiry)
                ])
        }
    }

    @Test func subscribedCreditsAResubscriptionOfTheBoundAccount() async throws {
        try await withSubscription { database in
            let later = t0.addingTimeInterval(120 * day)
            try await database.acceptNewNotifications(["n1", "n2"])

            // When SUBSCRIBED reports the initial buy (already credited by rA) and a resubscription
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified(
                        "n1", "SUBSCRIBED", uuid: "U1", subtype: "INITIAL_BUY",
                        renewal("o1", expires: t0.addingTimeInterval(30 * day))),
                    Fixture.notified(
                        "n2", "SUBSCRIBED", uuid: "U2", subtype: "RESUBSCRIBE", renewal("t5", expires: later)),
                ], catalog: catalog, now: t0)

            // Then only the resubscription credits
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: "already_credited"),
                    .notificationApplied(notificationID: "n2", status: .applied, reason: nil),
                ])
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: later)
                ])
        }
    }

    @Test func expiredEndsTheEntitlementAtTheEarlierOfItsExpiryAndNow() async throws {
        try await withSubscription { database in
            try await database.acceptNew([Fixture.receipt("rX", account: "a3")])
            _ = try await SettlementRepository(database).apply(
                [
                    Fixture.valid(
                        "rX", account: "a3",
                        [Fixture.purchase("x1", product: Fixture.vip, expires: t0.addingTimeInterval(30 * day))])
                ], catalog: catalog, now: t0)
            try await database.acceptNewNotifications(["n1", "n2"])
            let now = t0.addingTimeInterval(10 * day)

            // When EXPIRED arrives ten days in, for a period that would run thirty
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified(
                        "n1", "EXPIRED", uuid: "U1", subtype: "VOLUNTARY",
                        renewal("o1", expires: t0.addingTimeInterval(30 * day))),
                    Fixture.notified(
                        "n2", "EXPIRED", uuid: "U2", renewal("z1", expires: t0, original: "z0")),
                ], catalog: catalog, now: now)

            // Then a1's entitlement ends now; a3's subscription is untouched; the unbound one changes nothing
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: nil),
                    .notificationApplied(notificationID: "n2", status: .applied, reason: "unbound"),
                ])
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: now)
                ])
            #expect(
                try await LedgerRepository(database).account(id: "a3")?.entitlements
                    == [.init(name: "vip", expiresAt: t0.addingTimeInterval(30 * day))])
            let events = try await database.allWebhooks().filter { $0.type == .subscriptionExpired }
            #expect(events.map(\.accountID) == ["a1"])
            #expect(events.first?.receiptID == "rA")
            let data = try Fixture.data(events.first)
            #expect(data["expires_at"] as? String == Timestamp.format(now))
        }
    }

    @Test func aGracePeriodKeepsTheEntitlementUntilItEndsAndThenItExpires() async throws {
        try await withSubscription { database in
            let expiry = t0.addingTimeInterval(30 * day)
            let graceEnd = t0.addingTimeInterval(46 * day)
            try await database.acceptNewNotifications(["n1", "n2", "n3"])

            // When the renewal fails without a grace period, and then with one
            let results = try await SettlementRepository(database).apply(
                [
                    Fixture.notified("n1", "DID_FAIL_TO_RENEW", uuid: "U1", renewal("o1", expires: expiry)),
                    Fixture.notified(
                        "n2", "DID_FAIL_TO_RENEW", uuid: "U2", subtype: "GRACE_PERIOD", renewal("o1", expires: expiry),
                        grace: graceEnd),
                ], catalog: catalog, now: expiry)

            // Then the first changes nothing and the second keeps VIP until the grace period ends
            #expect(
                results == [
                    .notificationApplied(notificationID: "n1", status: .applied, reason: "ignored"),
                    .notificationApplied(notificationID: "n2", status: .applied, reason: nil),
                ])
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: graceEnd)
                ])
            #expect(try await database.allWebhooks().filter { $0.type != .receiptCredited }.isEmpty)

            // When the grace period expires unpaid
            _ = try await SettlementRepository(database).apply(
                [Fixture.notified("n3", "GRACE_PERIOD_EXPIRED", uuid: "U3", renewal("o1", expires: expiry))],
                catalog: catalog, now: graceEnd)

            // Then the entitlement ends with the paid period
            #expect(
                try await LedgerRepository(database).account(id: "a1")?.entitlements == [
                    .init(name: "vip", expiresAt: expiry)
                ])
            #expect(try await database.allWebhooks().filter { $0.type == .subscriptionExpired }.count == 1)
        }
    }
}
