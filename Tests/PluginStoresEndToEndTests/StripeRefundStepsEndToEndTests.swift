import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// A Stripe payment refunded in steps: each `charge.refunded` reads back the charge's
/// `amount_refunded`, and the engine takes that share less what earlier refunds took.
extension StripeEndToEndTests {
    @Test(arguments: TestBackend.allCases) func refundsInStepsTakeBackEachDifferenceOnce(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given 500 coins paid 10.00
            let stripe = pipeline.stub.stripe
            let payment = try await paid(
                pipeline, account: "web-steps", product: Self.bigCoins, amount: 1000, event: "evt_e2e_s0")
            let charge = try #require(payment.charge)
            let transaction = "stripe:\(payment.paymentIntent)"
            #expect(try await pipeline.balance("web-steps") == 500)

            // When 3.00 is refunded (30 %), and charge.refunded is delivered twice, then once
            // more under another event id that finds the charge as it was
            #expect(stripe.refund(charge: charge, amount: 300))
            let first = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_s1")
            let (again, resent) = try await pipeline.deliverStripe(
                "charge.refunded", object: charge, eventID: "evt_e2e_s1")
            #expect(again == 200 && resent["notification_id"] as? String == first.notificationID)
            let copy = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_s1b")

            // Then 30 % of the coins are taken back, once
            #expect(first.status == .applied && first.type == "REFUND" && first.reason == nil, "\(first)")
            #expect(copy.status == .applied && copy.reason == "already_refunded", "\(copy)")
            #expect(try await pipeline.balance("web-steps") == 350)

            // When the refunds reach 8.00 (80 %), delivered twice the same two ways
            #expect(stripe.refund(charge: charge, amount: 500))
            let second = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_s2")
            let (twice, _) = try await pipeline.deliverStripe("charge.refunded", object: charge, eventID: "evt_e2e_s2")
            #expect(twice == 200)
            let secondCopy = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_s2b")

            // Then 50 % more is taken back, once
            #expect(second.status == .applied && second.reason == nil, "\(second)")
            #expect(secondCopy.reason == "already_refunded", "\(secondCopy)")
            #expect(try await pipeline.balance("web-steps") == 100)

            // When the rest is refunded
            #expect(stripe.refund(charge: charge))
            let last = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_s3")

            // Then the remaining 20 % goes: three debits in all, the whole credit and no more
            #expect(last.status == .applied && last.reason == nil, "\(last)")
            #expect(try await pipeline.balance("web-steps") == 0)
            #expect(try await pipeline.ledgerKinds("web-steps") == [.refund, .refund, .refund, .purchase])
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "web-steps")).ledger
            #expect(ledger.map(\.amount) == [-100, -250, -150, 500])

            // And the backend heard of each step once, with that step's amount
            let refunded = try await pipeline.webhooks("purchase.refunded", mentioning: transaction, count: 3)
            let amounts = refunded.compactMap { ($0["data"] as? [String: Any])?["amount"] as? Int }
            #expect(amounts.sorted() == [-250, -150, -100], "\(refunded)")
            #expect(try await pipeline.storedNotifications() == 6)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])

            // And the revenue ledger holds Stripe's 10.00 and the same three steps given back
            let revenue = try await pipeline.database.snapshot { db in
                try await db.rows(
                    "SELECT kind, currency, gross, tax, estimated FROM revenue_entries WHERE transaction_id = ? ORDER BY id",
                    [transaction])
            }
            #expect(try revenue.map { try $0.get("gross") as Int64 } == [1000, -300, -500, -200])
            // with Stripe's amount_tax (1.66 of it), each step giving back its share
            #expect(try revenue.map { try $0.get("tax") as Int64? } == [166, -49, -83, -34])
            #expect(try revenue.map { try $0.get("kind") as String } == ["purchase", "refund", "refund", "refund"])
            #expect(
                try revenue.allSatisfy { try $0.get("currency") as String == "USD" && !($0.get("estimated") as Bool) })
        }
    }

    @Test(arguments: TestBackend.allCases) func aDisputeAfterAPartialRefundTakesNothingMore(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given 500 coins paid 10.00, 4.00 of it refunded and taken back
            let stripe = pipeline.stub.stripe
            let payment = try await paid(
                pipeline, account: "web-refund-dispute", product: Self.bigCoins, amount: 1000, event: "evt_e2e_rd0")
            let charge = try #require(payment.charge)
            #expect(stripe.refund(charge: charge, amount: 400))
            _ = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_rd1")
            #expect(try await pipeline.balance("web-refund-dispute") == 300)

            // When the rest is disputed, its funds withdrawn, and the dispute is then won
            let dispute = try #require(stripe.openDispute(charge: charge, amount: 600))
            let withdrawn = try await delivered(
                pipeline, "charge.dispute.funds_withdrawn", object: dispute, event: "evt_e2e_rd2")
            #expect(stripe.closeDispute(dispute, status: "won"))
            let closed = try await delivered(pipeline, "charge.dispute.closed", object: dispute, event: "evt_e2e_rd3")

            // Then the dispute took nothing (its win would not give it back) and gave nothing back
            #expect(withdrawn.reason == "already_refunded", "\(withdrawn)")
            #expect(closed.status == .applied && closed.type != "REFUND_REVERSED", "\(closed)")
            #expect(try await pipeline.balance("web-refund-dispute") == 300)
            #expect(try await pipeline.ledgerKinds("web-refund-dispute") == [.refund, .purchase])
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}
