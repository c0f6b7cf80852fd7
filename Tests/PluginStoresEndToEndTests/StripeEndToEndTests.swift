import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Stripe web purchases through the plug-in seam: Stripe's events delivered to
/// `POST /v1/stripe/notifications` with their `Stripe-Signature`, stored once per event id,
/// what they name read back from the (stub) Stripe API by a validator, credited and taken
/// back by the engine every store shares; on the real broker, both backends.
@Suite struct StripeEndToEndTests {
    static let coins = "com.example.coins100"
    static let bigCoins = "com.example.coins500"

    /// A paid Checkout Session for `account`, its `checkout.session.completed` delivered and
    /// applied; the payment.
    func paid(
        _ pipeline: PipelineHarness, account: String, product: String = coins, amount: Int = 499, event: String
    ) async throws -> StubStripe.Payment {
        let payment = pipeline.stub.stripe.createSession(account: account, lookupKey: product, amount: amount)
        let (status, answer) = try await pipeline.deliverStripe(
            "checkout.session.completed", object: payment.session, eventID: event)
        #expect(status == 200, "\(answer)")
        let details = try await pipeline.settledNotification(try #require(answer["notification_id"] as? String))
        #expect(details?.status == .applied && details?.accountID == account, "\(String(describing: details))")
        return payment
    }

    /// Delivers `type` about `object` and waits for it to settle; its details.
    func delivered(_ pipeline: PipelineHarness, _ type: String, object: String, event: String) async throws
        -> NotificationDetails
    {
        let (status, answer) = try await pipeline.deliverStripe(type, object: object, eventID: event)
        #expect(status == 200, "\(answer)")
        let id = try #require(answer["notification_id"] as? String)
        return try #require(try await pipeline.settledNotification(id))
    }

    @Test(arguments: TestBackend.allCases) func aCompletedSessionDeliveredTwiceIsCreditedOnceToItsAccount(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a paid Checkout Session of the web shop for player web-1
            let stripe = pipeline.stub.stripe
            let payment = stripe.createSession(account: "web-1", lookupKey: Self.coins)
            let transaction = "stripe:\(payment.paymentIntent)"

            // When Stripe delivers checkout.session.completed, and again (the same event id)
            let (status, accepted) = try await pipeline.deliverStripe(
                "checkout.session.completed", object: payment.session, eventID: "evt_e2e_paid_1")
            #expect(status == 200, "\(accepted)")
            let id = try #require(accepted["notification_id"] as? String)
            let (again, resent) = try await pipeline.deliverStripe(
                "checkout.session.completed", object: payment.session, eventID: "evt_e2e_paid_1")
            #expect(again == 200 && resent["notification_id"] as? String == id, "\(resent)")

            // Then the session is read back and the payment credited once, to client_reference_id
            let details = try #require(try await pipeline.settledNotification(id))
            #expect(details.status == .applied && details.type == "SUBSCRIBED", "\(details)")
            #expect(details.subtype == "checkout.session.completed" && details.notificationUUID == "evt_e2e_paid_1")
            #expect(details.transactionID == transaction && details.accountID == "web-1", "\(details)")
            #expect(details.productID == Self.coins, "\(details)")
            #expect(try await pipeline.balance("web-1") == 100)
            let ledger = try #require(try await LedgerRepository(pipeline.database).account(id: "web-1")).ledger
            #expect(ledger.map(\.transactionID) == [transaction] && ledger.map(\.kind) == [.purchase])
            #expect(try await pipeline.storedNotifications() == 1)
            #expect(stripe.calls["checkout.sessions.retrieve"] == 1)
            let credited = try await pipeline.webhooks("purchase.credited", mentioning: transaction)
            #expect(credited.count == 1)

            // And the same payment announced again by another event credits nothing more
            let later = try await delivered(
                pipeline, "checkout.session.async_payment_succeeded", object: payment.session, event: "evt_e2e_paid_2")
            #expect(later.status == .applied && later.transactionID == transaction, "\(later)")
            #expect(try await pipeline.balance("web-1") == 100)
            #expect(try await LedgerRepository(pipeline.database).account(id: "web-1")?.ledger.count == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func anUnpaidSessionIsCreditedWhenItsAsyncPaymentSucceeds(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a session completed with a bank debit still on its way
            let stripe = pipeline.stub.stripe
            let payment = stripe.createSession(account: "web-async", lookupKey: Self.coins, paid: false)
            let completed = try await delivered(
                pipeline, "checkout.session.completed", object: payment.session, event: "evt_e2e_a1")

            // Then it is recorded, and credits nothing yet
            #expect(completed.status == .applied && completed.type == "checkout.session.completed", "\(completed)")
            #expect(completed.transactionID == nil, "\(completed)")
            #expect(try await pipeline.balance("web-async") == 0)

            // When the payment succeeds
            #expect(stripe.pay(session: payment.session) != nil)
            let succeeded = try await delivered(
                pipeline, "checkout.session.async_payment_succeeded", object: payment.session, event: "evt_e2e_a2")

            // Then it is credited once
            #expect(succeeded.status == .applied && succeeded.type == "SUBSCRIBED", "\(succeeded)")
            #expect(succeeded.transactionID == "stripe:\(payment.paymentIntent)", "\(succeeded)")
            #expect(try await pipeline.balance("web-async") == 100)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func stripeUnavailableIsRetriedThroughTheBrokerAndCreditedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given Stripe answering 503 to the first read, then 429 with Retry-After: 1
            let stripe = pipeline.stub.stripe
            stripe.configuration.withLock {
                $0.failFirst = 1
                $0.rateLimitFirst = 1
            }
            let payment = stripe.createSession(account: "web-patient", lookupKey: Self.coins)

            // When its event is delivered
            let details = try await delivered(
                pipeline, "checkout.session.completed", object: payment.session, event: "evt_e2e_t1")

            // Then it is read back on the third attempt and credited once
            #expect(details.status == .applied && details.attempts == 3, "\(details)")
            #expect(details.transactionID == "stripe:\(payment.paymentIntent)", "\(details)")
            #expect(stripe.calls["checkout.sessions.retrieve"] == 3)
            #expect(try await pipeline.balance("web-patient") == 100)
        }
    }

    @Test(arguments: TestBackend.allCases) func aDeliveryWhoseSignatureDoesNotHoldIs401AndStoresNothing(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given a paid session, and what the pipeline holds before
            let stripe = pipeline.stub.stripe
            let payment = stripe.createSession(account: "web-forger", lookupKey: Self.bigCoins)
            let before = (
                try await pipeline.storedNotifications(), try await pipeline.storedReceipts(),
                try await pipeline.balance("web-forger")
            )
            #expect(before == (0, 0, 0))

            // When its event arrives signed with another secret, too late, unsigned or altered
            let event = try #require(
                stripe.signedEvent(
                    "checkout.session.completed", object: payment.session,
                    secret: PipelineHarness.stripeWebhookSecret, eventID: "evt_e2e_forged"))
            let forged = StubStripe.signature(event.body, secret: "whsec_not_the_endpoints", at: Date())
            let stale = StubStripe.signature(
                event.body, secret: PipelineHarness.stripeWebhookSecret, at: Date().addingTimeInterval(-3600))
            var altered = event.body
            altered.append(contentsOf: Array(" ".utf8))
            let cases: [([UInt8], String?, String)] = [
                (event.body, forged, "another secret"),
                (event.body, stale, "signed an hour ago"),
                (event.body, nil, "no Stripe-Signature"),
                (event.body, "v1=00", "a header without a timestamp"),
                (altered, event.signature, "a body that is not the one signed"),
            ]
            for (body, signature, what) in cases {
                let (status, answer) = try await pipeline.postStoreNotification(
                    "stripe", body: body, headers: signature.map { [(name: "Stripe-Signature", value: $0)] } ?? [])
                let error = answer["error"] as? [String: Any]
                #expect(status == 401 && error?["code"] as? String == "unauthorized", "\(what): \(answer)")
            }

            // Then nothing was stored, read or credited
            let after = (
                try await pipeline.storedNotifications(), try await pipeline.storedReceipts(),
                try await pipeline.balance("web-forger")
            )
            #expect(after == before)
            #expect(stripe.calls.isEmpty)

            // And the genuine delivery is taken
            let (status, answer) = try await pipeline.postStoreNotification(
                "stripe", body: event.body, headers: [(name: "Stripe-Signature", value: event.signature)])
            #expect(status == 200, "\(answer)")
            _ = try await pipeline.settledNotification(try #require(answer["notification_id"] as? String))
            #expect(try await pipeline.balance("web-forger") == 500)

            // And so is one signed with the secret being rotated out (IAP_STRIPE_WEBHOOK_SECRETS holds both)
            let second = stripe.createSession(account: "web-forger", lookupKey: Self.coins)
            let (rotated, answered) = try await pipeline.deliverStripe(
                "checkout.session.completed", object: second.session, eventID: "evt_e2e_rotated",
                secret: PipelineHarness.stripeOldWebhookSecret)
            #expect(rotated == 200, "\(answered)")
            _ = try await pipeline.settledNotification(try #require(answered["notification_id"] as? String))
            #expect(try await pipeline.balance("web-forger") == 600)
        }
    }

    @Test(arguments: TestBackend.allCases) func aDisputeLostAfterItsFundsWereWithdrawnIsDebitedOnce(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given 100 coins paid, then disputed: the funds leave the balance when it opens
            let stripe = pipeline.stub.stripe
            let payment = try await paid(pipeline, account: "web-dispute", event: "evt_e2e_d0")
            let charge = try #require(payment.charge)
            let dispute = try #require(stripe.openDispute(charge: charge))
            let withdrawn = try await delivered(
                pipeline, "charge.dispute.funds_withdrawn", object: dispute, event: "evt_e2e_d1")

            // Then the coins are taken back then
            let transaction = "stripe:\(payment.paymentIntent)"
            #expect(withdrawn.status == .applied && withdrawn.type == "REVOKE", "\(withdrawn)")
            #expect(withdrawn.transactionID == transaction && withdrawn.accountID == "web-dispute", "\(withdrawn)")
            #expect(try await pipeline.balance("web-dispute") == 0)

            // When the bank decides against the merchant and charge.dispute.closed arrives
            #expect(stripe.closeDispute(dispute, status: "lost"))
            let closed = try await delivered(pipeline, "charge.dispute.closed", object: dispute, event: "evt_e2e_d2")

            // Then nothing more is taken: the dispute was debited once
            #expect(closed.status == .applied, "\(closed)")
            #expect(try await pipeline.balance("web-dispute") == 0)
            #expect(try await pipeline.ledgerKinds("web-dispute") == [.revoke, .purchase])
            let flags = try #require(try await LedgerRepository(pipeline.database).account(id: "web-dispute")).flags
            #expect(flags.isEmpty, "\(flags)")
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aDisputeWonGivesBackWhatTheWithdrawalTook(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // Given 100 coins paid, disputed, and taken back when the funds were withdrawn
            let stripe = pipeline.stub.stripe
            let payment = try await paid(pipeline, account: "web-won", event: "evt_e2e_w0")
            let charge = try #require(payment.charge)
            let dispute = try #require(stripe.openDispute(charge: charge))
            _ = try await delivered(pipeline, "charge.dispute.funds_withdrawn", object: dispute, event: "evt_e2e_w1")
            #expect(try await pipeline.balance("web-won") == 0)

            // When the merchant wins it
            #expect(stripe.closeDispute(dispute, status: "won"))
            let closed = try await delivered(pipeline, "charge.dispute.closed", object: dispute, event: "evt_e2e_w2")

            // Then the coins come back, once
            #expect(closed.status == .applied && closed.type == "REFUND_REVERSED", "\(closed)")
            #expect(try await pipeline.balance("web-won") == 100)
            #expect(try await pipeline.ledgerKinds("web-won") == [.refundReversal, .revoke, .purchase])
            let reversed = try await pipeline.webhooks(
                "purchase.refund_reversed", mentioning: "stripe:\(payment.paymentIntent)")
            #expect(reversed.count == 1)
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func eventsThatPayNobodyAreRecordedAndCreditNothing(_ backend: TestBackend)
        async throws
    {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            // A session without the player's account is rejected
            let stripe = pipeline.stub.stripe
            let anonymous = stripe.createSession(account: nil, lookupKey: Self.coins)
            let nobody = try await delivered(
                pipeline, "checkout.session.completed", object: anonymous.session, event: "evt_e2e_n1")
            #expect(nobody.status == .rejected, "\(nobody)")
            #expect(nobody.reason == "stripe_session_without_client_reference_id", "\(nobody)")

            // A player's session of a price the catalog does not sell is recorded, and credits nothing
            _ = try await paid(pipeline, account: "web-known", event: "evt_e2e_n2")
            let unknown = stripe.createSession(account: "web-known", lookupKey: "com.example.gems10")
            let unsold = try await delivered(
                pipeline, "checkout.session.completed", object: unknown.session, event: "evt_e2e_n3")
            #expect(unsold.status == .applied && unsold.reason == "unknown_product", "\(unsold)")
            #expect(try await pipeline.balance("web-known") == 100)

            // An event whose object has no id (Stripe's balance.available) is stored and changes nothing
            let balance = Array(
                #"{"id":"evt_e2e_n4","object":"event","type":"balance.available","created":1764064800,"livemode":false,"data":{"object":{"object":"balance","available":[]}}}"#
                    .utf8)
            let signature = StubStripe.signature(balance, secret: PipelineHarness.stripeWebhookSecret, at: Date())
            let (status, answer) = try await pipeline.postStoreNotification(
                "stripe", body: balance, headers: [(name: "Stripe-Signature", value: signature)])
            #expect(status == 200, "\(answer)")
            let recorded = try await pipeline.settledNotification(try #require(answer["notification_id"] as? String))
            #expect(
                recorded?.status == .applied && recorded?.type == "balance.available", "\(String(describing: recorded))"
            )
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }

    @Test(arguments: TestBackend.allCases) func aNewPlayersUncreditedPaymentIsRecordedNotDeadLettered(
        _ backend: TestBackend
    ) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in
            let stripe = pipeline.stub.stripe
            // Given a payment refunded before its completed event was verified, by a player the
            // pipeline has never seen: the refund is recorded so that the late event credits nothing
            let refundedFirst = stripe.createSession(account: "web-late", lookupKey: Self.coins)
            let charge = try #require(refundedFirst.charge)
            #expect(stripe.refund(charge: charge))
            let refund = try await delivered(pipeline, "charge.refunded", object: charge, event: "evt_e2e_l1")
            #expect(refund.status == .applied && refund.type == "REFUND", "\(refund)")
            let late = try await delivered(
                pipeline, "checkout.session.completed", object: refundedFirst.session, event: "evt_e2e_l2")
            // And a new player's session of a price the catalog does not sell
            let unknown = stripe.createSession(account: "web-new", lookupKey: "com.example.gems10")
            let unsold = try await delivered(
                pipeline, "checkout.session.completed", object: unknown.session, event: "evt_e2e_l3")

            // Then neither credits anything, and both are recorded, naming their player
            #expect(try await pipeline.balance("web-late") == 0)
            #expect(try await pipeline.balance("web-new") == 0)
            #expect(late.status == .applied && late.reason == "refunded", "\(late)")
            #expect(unsold.status == .applied && unsold.reason == "unknown_product", "\(unsold)")
            #expect(late.accountID == "web-late" && unsold.accountID == "web-new")
            #expect(try await LedgerRepository(pipeline.database).audit() == [])
        }
    }
}
