import Foundation
import HTTPClient
import PipelineCore
import StorePlugins
import Stripe
import StubStore
import Testing

/// The stub's admin routes, as a drill or another process drives them over HTTP: a session
/// made and paid, refunded, disputed, and a signed event fetched and taken in by the plug-in.
@Suite struct StubStripeAdminTests {
    func post(_ fixture: StripeFixture, _ path: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
        let response = try await fixture.http.execute(
            HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(fixture.port)/stripe/stub" + path,
                headers: [(name: "Content-Type", value: "application/json")],
                body: Array(try JSONSerialization.data(withJSONObject: body))))
        #expect(response.status == 200, "\(path): \(response.bodyString)")
        return try #require(try JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any])
    }

    @Test func aDrillMakesAPaymentRefundsAndDisputesItAndGetsSignedEvents() async throws {
        try await StripeFixture.run { fixture in
            let made = try await post(
                fixture, "/sessions", ["client_reference_id": "player-9", "lookup_key": "coins_100", "amount": 800])
            let session = try #require(made["session"] as? String)
            let charge = try #require(made["charge"] as? String)
            #expect((made["payment_intent"] as? String)?.hasPrefix("pi_") == true)

            _ = try await post(fixture, "/charges/\(charge)/refund", ["amount": 200])
            let opened = try await post(fixture, "/charges/\(charge)/dispute", [:])
            let dispute = try #require(opened["dispute"] as? String)
            _ = try await post(fixture, "/disputes/\(dispute)/close", ["status": "lost"])

            let signed = try await post(
                fixture, "/events",
                [
                    "type": "charge.refunded", "object": charge, "secret": StripeFixture.secret,
                    "timestamp": Int(Date().timeIntervalSince1970),
                ])
            let body = Array(try #require(signed["body"] as? String).utf8)
            let signature = try #require(signed["signature"] as? String)
            let inbound = try await StripeStore(settings: fixture.settings).notification(
                InboundRequest(headers: ["stripe-signature": signature], body: body))
            let event = try #require(StripeEvent(payload: inbound.evidence.payload))
            #expect(event.type == "charge.refunded" && event.objectID == charge)
            #expect(event.details["amount"] == "800" && event.details["amount_refunded"] == "200")

            let outcome = try await fixture.verify("checkout.session.completed", object: session)
            #expect(outcome.notification?.transaction?.storeAccountID == "player-9")
            let lost = try await fixture.verify("charge.dispute.closed", object: dispute)
            #expect(lost.notification?.type == .revoke)
        }
    }

    @Test func theRegistryConfiguresStripeAndRoutesItsEvidenceToIt() async throws {
        try await StripeFixture.run { fixture in
            let registry = try StoreRegistry.configure(
                [StripeStore.self],
                environment: EnvironmentReader([
                    "IAP_STRIPE_API_KEY": "sk_test_stub", "IAP_STRIPE_WEBHOOK_SECRETS": StripeFixture.secret,
                    "IAP_STRIPE_API_URL": "http://127.0.0.1:\(fixture.port)/stripe",
                ]))
            #expect(registry.configured["stripe"]?.takesNotifications == true)
            #expect(registry.configured["stripe"]?.receiptMember == nil)
            let paid = fixture.stripe.createSession(account: "player-5", lookupKey: "coins_100")
            let event = try #require(
                fixture.stripe.signedEvent(
                    "checkout.session.completed", object: paid.session, secret: StripeFixture.secret))
            let inbound = try await #require(registry.configured["stripe"]).notification(
                InboundRequest(headers: ["stripe-signature": event.signature], body: event.body))
            let verifier = try registry.verifier(fixture.context())
            let outcome = await verifier.verify(
                Submission(id: "n-5", accountID: "", evidence: .store(inbound.evidence), submittedAt: Date()))
            #expect(outcome.notification?.transaction?.storeAccountID == "player-5")
        }
    }
}
