import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// A subscription in its grace period, on both databases: its paid month is over, Apple is
/// still trying to bill and keeps its access; the figures count it active and in grace, and
/// no longer once the grace period ends.
@Suite struct SubscriptionGraceFiguresTests {
    @Test(arguments: TestBackend.allCases) func aSubscriptionWhoseRenewalFailedIsActiveInItsGracePeriod(
        _ backend: TestBackend
    ) async throws {
        try await withTestDatabase(backend) { database in
            let day: TimeInterval = 86_400
            let expiry = Fixture.t0.addingTimeInterval(30 * day)
            let graceEnd = expiry.addingTimeInterval(16 * day)
            // Given a month of VIP at $4.99, as Apple signed it
            var month = Fixture.purchase("o1", product: Fixture.vip, expires: expiry)
            (month.priceMicros, month.currency) = (4_990_000, "USD")
            try await database.acceptNew([Fixture.receipt("rA", account: "a1")])
            try await database.acceptNewNotifications(["n1"])
            let settlement = SettlementRepository(database)
            _ = try await settlement.apply(
                [Fixture.valid("rA", account: "a1", [month])], catalog: Fixture.catalog, now: Fixture.t0)
            let figures = SubscriptionFigures(database)
            let during = try await figures.active(now: Fixture.t0.addingTimeInterval(day))
            #expect(during.map(\.subscribers) == [1] && during.map(\.inGrace) == [0], "\(during)")

            // When its renewal fails and Apple grants a grace period
            _ = try await settlement.apply(
                [
                    Fixture.notified(
                        "n1", "DID_FAIL_TO_RENEW", uuid: "U1", subtype: "GRACE_PERIOD",
                        Fixture.purchase("o1", product: Fixture.vip, expires: expiry), grace: graceEnd)
                ], catalog: Fixture.catalog, now: expiry)

            // Then past the paid month it is still active, in grace
            let grace = try await figures.active(now: expiry.addingTimeInterval(day))
            #expect(grace.map(\.subscribers) == [1] && grace.map(\.inGrace) == [1], "\(grace)")
            #expect(grace.map(\.monthlyRecurringRevenue) == [499 * 2_629_746 / 2_592_000])
            #expect(try await figures.billingRetry(now: expiry.addingTimeInterval(day)).isEmpty)
            // and past the grace period it is not: Apple still retrying, it is in billing retry
            #expect(try await figures.active(now: graceEnd.addingTimeInterval(day)).isEmpty)
            #expect(try await figures.billingRetry(now: graceEnd.addingTimeInterval(day)) == ["apple": 1])
            // until Apple gives up, its retry over
            try await database.acceptNewNotifications(["n2"], now: graceEnd.addingTimeInterval(2 * day))
            _ = try await settlement.apply(
                [
                    Fixture.notified(
                        "n2", "EXPIRED", uuid: "U2", subtype: "BILLING_RETRY",
                        Fixture.purchase("o1", product: Fixture.vip, expires: expiry))
                ], catalog: Fixture.catalog, now: graceEnd.addingTimeInterval(2 * day))
            #expect(try await figures.billingRetry(now: graceEnd.addingTimeInterval(3 * day)).isEmpty)
        }
    }
}
