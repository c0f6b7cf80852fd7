import Foundation
import PipelineCore
import Stripe
import StubStore
import Testing

/// The verifier against the stub over loopback: each event taken in signed, then what it
/// names read back from Stripe's API and answered as the notification the engine applies.
@Suite struct StripeVerifierTests {
    @Test func aPaidSessionCreditsItsAccountAndProduct() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100", quantity: 3)
            let outcome = try await fixture.verify("checkout.session.completed", object: paid.session)
            let notification = try #require(outcome.notification, "\(outcome)")
            #expect(notification.rawType == "SUBSCRIBED" && notification.type == .subscribed)
            #expect(notification.subtype == "checkout.session.completed")
            #expect(notification.environment == "Sandbox")
            let transaction = try #require(notification.transaction)
            #expect(transaction.transactionID == "stripe:\(paid.paymentIntent)")
            #expect(transaction.originalTransactionID == transaction.transactionID)
            #expect(transaction.productID == "coins_100" && transaction.quantity == 3)
            #expect(transaction.storeAccountID == "player-1")
            #expect(transaction.purchaseDate != nil && transaction.cancellationDate == nil)
            #expect(fixture.stripe.calls == ["checkout.sessions.retrieve": 1])
        }
    }

    @Test func anAsyncPaymentIsRecordedUnpaidThenCreditedByItsSuccessAsTheSameTransaction() async throws {
        try await StripeFixture.run { fixture in
            let pending = fixture.stripe.createSession(account: "player-2", lookupKey: "coins_100", paid: false)
            let completed = try await fixture.verify("checkout.session.completed", object: pending.session)
            let recorded = try #require(completed.notification)
            #expect(recorded.rawType == "checkout.session.completed" && recorded.type == nil)
            #expect(recorded.transaction == nil)

            #expect(fixture.stripe.pay(session: pending.session) != nil)
            let succeeded = try await fixture.verify(
                "checkout.session.async_payment_succeeded", object: pending.session)
            let credited = try #require(succeeded.notification?.transaction)
            #expect(succeeded.notification?.type == .subscribed)
            #expect(succeeded.notification?.subtype == "checkout.session.async_payment_succeeded")
            // The same payment announced twice is one transaction id: the engine credits it once.
            let again = try await fixture.verify("checkout.session.completed", object: pending.session)
            #expect(again.notification?.transaction?.transactionID == credited.transactionID)
            #expect(credited.transactionID == "stripe:\(pending.paymentIntent)")

            let failed = try await fixture.verify("checkout.session.async_payment_failed", object: pending.session)
            #expect(failed.notification?.rawType == "checkout.session.async_payment_failed")
            #expect(failed.notification?.transaction == nil)
        }
    }

    @Test func aSessionThePipelineCannotCreditIsRejectedWithTheReason() async throws {
        try await StripeFixture.run { fixture in
            let anonymous = fixture.stripe.createSession(account: nil, lookupKey: "coins_100")
            let outcome1 = try await fixture.verify("checkout.session.completed", object: anonymous.session)
            #expect(outcome1 == .rejected(reason: "stripe_session_without_client_reference_id"))
            let unpriced = fixture.stripe.createSession(account: "player-1", lookupKey: nil)
            let outcome2 = try await fixture.verify("checkout.session.completed", object: unpriced.session)
            #expect(outcome2 == .rejected(reason: "stripe_price_without_lookup_key"))
            let basket = fixture.stripe.createSession(
                account: "player-1", lookupKey: "coins_100", moreLookupKeys: ["coins_500"])
            let outcome3 = try await fixture.verify("checkout.session.completed", object: basket.session)
            #expect(outcome3 == .rejected(reason: "stripe_session_needs_one_line_item"))
        }
    }

    @Test func aFullRefundTakesAllOfItBackAndAPartialOneItsShare() async throws {
        try await StripeFixture.run { fixture in
            let full = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100", amount: 1000)
            let fullCharge = try #require(full.charge)
            #expect(fixture.stripe.refund(charge: fullCharge))
            let refunded = try #require(try await fixture.verify("charge.refunded", object: fullCharge).notification)
            #expect(refunded.type == .refund && refunded.subtype == "charge.refunded")
            #expect(refunded.transaction?.transactionID == "stripe:\(full.paymentIntent)")
            #expect(refunded.transaction?.productID == "coins_100")
            #expect(refunded.transaction?.revocationPercentage == 100_000)
            #expect(refunded.transaction?.cancellationDate != nil)

            let partial = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100", amount: 999)
            let charge = try #require(partial.charge)
            #expect(fixture.stripe.refund(charge: charge, amount: 333))
            let first = try await fixture.verify("charge.refunded", object: charge)
            #expect(first.notification?.transaction?.revocationPercentage == 33_333)
            // Stripe adds refunds up: the second event carries the share of both.
            #expect(fixture.stripe.refund(charge: charge, amount: 333))
            let second = try await fixture.verify("charge.refunded", object: charge)
            #expect(second.notification?.transaction?.revocationPercentage == 66_666)
        }
    }

    @Test func aChargeNothingWasRefundedOfIsRecordedOnly() async throws {
        try await StripeFixture.run { fixture in
            let unpaid = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100", paid: false)
            let charge = try #require(fixture.stripe.pay(session: unpaid.session))
            // Not refunded at all: nothing to take back.
            let outcome = try await fixture.verify("charge.refunded", object: charge)
            #expect(outcome.notification?.rawType == "charge.refunded" && outcome.notification?.transaction == nil)
        }
    }

    @Test func aLostDisputeIsRevokedAndAWonOneGivenBack() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-3", lookupKey: "coins_100", amount: 1000)
            let charge = try #require(paid.charge)
            let dispute = try #require(fixture.stripe.openDispute(charge: charge, amount: 500))
            let withdrawn = try #require(
                try await fixture.verify("charge.dispute.funds_withdrawn", object: dispute).notification)
            #expect(withdrawn.type == .revoke && withdrawn.subtype == "charge.dispute.funds_withdrawn")
            #expect(withdrawn.transaction?.transactionID == "stripe:\(paid.paymentIntent)")
            #expect(withdrawn.transaction?.revocationPercentage == 50_000)

            #expect(fixture.stripe.closeDispute(dispute, status: "won"))
            let won = try #require(try await fixture.verify("charge.dispute.closed", object: dispute).notification)
            #expect(won.type == .refundReversed && won.transaction?.transactionID == "stripe:\(paid.paymentIntent)")
            // A withdrawal verified after the dispute was won takes nothing back.
            let late = try await fixture.verify("charge.dispute.funds_withdrawn", object: dispute)
            #expect(late.notification?.type == nil && late.notification?.transaction == nil)

            let other = fixture.stripe.createSession(account: "player-3", lookupKey: "coins_100")
            let otherCharge = try #require(other.charge)
            let lost = try #require(fixture.stripe.openDispute(charge: otherCharge))
            #expect(fixture.stripe.closeDispute(lost, status: "lost"))
            let closed = try #require(try await fixture.verify("charge.dispute.closed", object: lost).notification)
            #expect(closed.type == .revoke && closed.transaction?.revocationPercentage == 100_000)
        }
    }

    @Test func aWonDisputeOfAChargeRefundedBeforeGivesNothingBack() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-4", lookupKey: "coins_100", amount: 1000)
            let charge = try #require(paid.charge)
            #expect(fixture.stripe.refund(charge: charge, amount: 200))
            let dispute = try #require(fixture.stripe.openDispute(charge: charge, amount: 800))
            // Its withdrawal reaches no further than the refund did: the engine takes nothing more.
            let withdrawn = try await fixture.verify("charge.dispute.funds_withdrawn", object: dispute)
            #expect(withdrawn.notification?.type == .revoke)
            #expect(withdrawn.notification?.transaction?.revocationPercentage == 20_000)
            #expect(fixture.stripe.closeDispute(dispute, status: "won"))
            let won = try await fixture.verify("charge.dispute.closed", object: dispute)
            #expect(won.notification?.rawType == "charge.dispute.closed" && won.notification?.transaction == nil)
        }
    }

    @Test func stripesFailuresAreTransientAndItsRateLimitHonoured() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100")
            fixture.stripe.configuration.withLock {
                $0.failFirst = 1
                $0.rateLimitFirst = 1
                $0.retryAfterSeconds = 7
            }
            let outcome4 = try await fixture.verify("checkout.session.completed", object: paid.session)
            #expect(outcome4 == .transient(reason: "stripe_unavailable"))
            #expect(
                try await fixture.verify("checkout.session.completed", object: paid.session)
                    == .transient(reason: "stripe_rate_limited", retryAfter: .seconds(7)))
            let third = try await fixture.verify("checkout.session.completed", object: paid.session)
            #expect(third.notification != nil)
        }
    }

    @Test func aRateLimitPausesTheSharedBudgetSoTheNextCallIsDeferred() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100")
            fixture.stripe.configuration.withLock {
                $0.rateLimitFirst = 1
                $0.retryAfterSeconds = 60
            }
            let keeper = LocalCallBudgetKeeper()
            _ = try await fixture.verify("checkout.session.completed", object: paid.session, budgets: keeper)
            let next = try await fixture.verify("checkout.session.completed", object: paid.session, budgets: keeper)
            guard case .deferred(let reason, let retryAfter) = next else {
                Issue.record("not deferred: \(next)")
                return
            }
            #expect(reason == "stripe_budget")
            #expect(retryAfter > .seconds(50) && retryAfter <= .seconds(60))
            // Deferred before any call: Stripe heard one.
            #expect(fixture.stripe.calls == ["checkout.sessions.retrieve": 1])
        }
    }

    @Test func aWrongKeyRetriesAndAnUnknownObjectIsRejected() async throws {
        try await StripeFixture.run { fixture in
            let paid = fixture.stripe.createSession(account: "player-1", lookupKey: "coins_100")
            fixture.stripe.configuration.withLock { $0.apiKey = "sk_test_other" }
            let outcome5 = try await fixture.verify("checkout.session.completed", object: paid.session)
            #expect(outcome5 == .transient(reason: "stripe_unauthorized"))
            fixture.stripe.configuration.withLock { $0.apiKey = "sk_test_stub" }
            let submission = Submission(
                id: "n-2", accountID: "",
                evidence: .store(StripeEvent(id: "evt_x", type: "charge.refunded", objectID: "ch_missing").evidence),
                submittedAt: Date())
            let missing = try await fixture.verifier().verify(submission)
            #expect(missing == .rejected(reason: "stripe_not_found"))
        }
    }

    @Test func anEventNotActedOnIsRecordedWithoutACallAndOneWithoutItsObjectRejected() async throws {
        try await StripeFixture.run { fixture in
            let verifier = try fixture.verifier()
            func submission(_ event: StripeEvent) -> Submission {
                Submission(id: "n-3", accountID: "", evidence: .store(event.evidence), submittedAt: Date())
            }
            let balance = await verifier.verify(
                submission(StripeEvent(id: "evt_b", type: "balance.available", livemode: true, objectID: nil)))
            #expect(
                balance
                    == .notification(
                        StoreNotification(
                            notificationUUID: "evt_b", type: "balance.available", environment: "Production")))
            let headless = await verifier.verify(
                submission(StripeEvent(id: "evt_c", type: "charge.refunded", objectID: nil)))
            #expect(headless == .rejected(reason: "stripe_event_without_object_id"))
            let apple = await verifier.verify(
                Submission(id: "n-4", accountID: "a", evidence: .receipt("MIIT"), submittedAt: Date()))
            #expect(apple == .rejected(reason: "not_stripe"))
            #expect(fixture.stripe.calls.isEmpty)
        }
    }

    @Test func theQuotaIsStripesReadLimitByMode() {
        #expect(StripeQuota.forKey(testMode: false).budget.name == "stripe/live/read")
        #expect(StripeQuota.forKey(testMode: false).budget.limit == 100)
        #expect(StripeQuota.forKey(testMode: true).budget.limit == 25)
    }
}
