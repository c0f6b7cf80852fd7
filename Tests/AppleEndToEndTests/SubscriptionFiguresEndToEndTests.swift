import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import StubStore
import Testing

@testable import EndToEndSupport

/// The subscription figures from the entitlements and the revenue ledger, on both databases:
/// a free trial is active and in trial with no recurring revenue; its paid renewal converts
/// it and brings a month's price; its expiry ends it.
@Suite struct SubscriptionFiguresEndToEndTests {
    @Test(arguments: TestBackend.allCases) func aTrialConvertsRenewsAndEnds(_ backend: TestBackend) async throws {
        try await PipelineHarness.run(backend) { pipeline in
            let storeKit = pipeline.stub.storeKit
            let figures = SubscriptionFigures(pipeline.database)
            let started = Date().addingTimeInterval(-60)
            // Given a week's free trial of the monthly subscription (Apple's price 0)
            var trial = StubTransaction(
                transactionID: "fig-1", originalTransactionID: "fig-original", productID: "com.example.vip.monthly",
                type: .autoRenewableSubscription, expiresDate: Date().addingTimeInterval(7 * 86_400))
            (trial.price, trial.currency, trial.offerType) = (0, "USD", .introductoryOffer)
            let (_, id) = try await pipeline.submit(
                account: "fig-player", signedTransaction: storeKit.signTransaction(trial))
            #expect(try await pipeline.finalStatus(try #require(id))["status"] as? String == "credited")

            // Then it is active, in its trial, and brings nothing a month yet
            var active = try await figures.active(now: Date())
            #expect(active.map(\.subscribers) == [1] && active.map(\.inTrial) == [1], "\(active)")
            #expect(active.map(\.monthlyRecurringRevenue) == [0] && active.map(\.store) == ["apple"])

            // When Apple renews it into a paid month of $4.99
            let now = Date()
            var paid = StubTransaction(
                transactionID: "fig-2", originalTransactionID: "fig-original", productID: "com.example.vip.monthly",
                type: .autoRenewableSubscription, purchaseDate: now, expiresDate: now.addingTimeInterval(30 * 86_400))
            (paid.price, paid.currency) = (4990, "USD")
            #expect(
                try await storeKit.send(
                    storeKit.signNotification(type: .didRenew, transaction: paid), to: pipeline.notificationURL) == 200)
            #expect(await pipeline.notificationsSettled(1))

            // Then it is converted, and its month brings $4.99 scaled to a 30.44-day month
            active = try await figures.active(now: Date())
            #expect(active.map(\.subscribers) == [1] && active.map(\.inTrial) == [0], "\(active)")
            #expect(
                active.map(\.monthlyRecurringRevenue) == [499 * 2_629_746 / 2_592_000]
                    && active.map(\.currency) == ["USD"], "\(active)")
            let days = try await RevenueRepository(pipeline.database).days(
                from: RevenueDay.day(of: started), through: RevenueDay.day(of: Date()))
            #expect(days.map(\.trials).reduce(0, +) == 1 && days.map(\.renewals).reduce(0, +) == 1)
            #expect(days.map(\.starts).reduce(0, +) == 0 && days.map(\.paid).reduce(0, +) == 499)
            #expect(days.map(\.conversions).reduce(0, +) == 1)
            // A second paid month converts nothing more; the days rebuilt from the entries agree
            var again = paid
            (again.transactionID, again.purchaseDate) = ("fig-3", paid.expiresDate!)
            again.expiresDate = paid.expiresDate!.addingTimeInterval(30 * 86_400)
            #expect(
                try await storeKit.send(
                    storeKit.signNotification(type: .didRenew, transaction: again), to: pipeline.notificationURL) == 200
            )
            #expect(await pipeline.notificationsSettled(2))
            let revenue = RevenueRepository(pipeline.database)
            let renewed = try await revenue.days(from: RevenueDay.day(of: started), through: RevenueDay.day(of: Date()))
            #expect(renewed.map(\.conversions).reduce(0, +) == 1 && renewed.map(\.renewals).reduce(0, +) == 2)
            _ = try await revenue.rebuildDays()

            // And `iap export subscriptions` lists the three periods, the trial first, each month's
            // price scaled to a 30.44-day month
            let export = try await IAPProcess.run(
                ["export", "subscriptions", "--since", "2020-01-01", "--until", "2100-01-01"],
                environment: pipeline.databaseEnvironment)
            let lines = export.output.split(separator: "\n").filter { !$0.hasPrefix("export:") }.map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            #expect(lines.first?.contains("monthly_recurring") == true, "\(export.output.suffix(500))")
            let periods = lines.dropFirst().filter { $0.count == 19 }
            #expect(
                periods.map { $0[6] } == ["fig-1", "fig-2", "fig-3"]
                    && periods.map { $0[9] } == ["true", "false", "false"])
            #expect(periods.map { $0[14] } == ["0", "499", "499"] && periods.map { $0[16] } == ["0", "506", "506"])
            #expect(periods.first?[17] == "introductory", "\(periods.first ?? [])")
            #expect(
                try await revenue.days(from: RevenueDay.day(of: started), through: RevenueDay.day(of: Date()))
                    == renewed)

            // And once it expires it is no longer active, and counted as ended
            #expect(
                try await storeKit.send(
                    storeKit.signNotification(type: .expired, transaction: again), to: pipeline.notificationURL) == 200)
            #expect(await pipeline.notificationsSettled(3))
            let later = Date().addingTimeInterval(1)
            #expect(try await figures.active(now: later).isEmpty)
            #expect(try await figures.ended(since: started, until: later, now: later) == ["vip": 1])
            // Counted for its own app, never for another's
            #expect(try await figures.ended(since: started, until: later, now: later, app: .single) == ["vip": 1])
            let racer = AppScope(app: "racer", isDefault: false)
            #expect(try await figures.ended(since: started, until: later, now: later, app: racer) == [:])
        }
    }
}
