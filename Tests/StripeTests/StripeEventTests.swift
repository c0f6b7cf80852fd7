import Foundation
import PipelineCore
import StorePlugins
import Stripe
import StubStore
import Testing

/// Reading a signed event: what it keeps for the verifier, and a 400 naming the member for
/// a body that is not an event (signed all the same, so only the reading is at fault).
@Suite struct StripeEventTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = "whsec_events_secret"

    func take(_ body: String) async throws(StoreInputError) -> InboundNotification {
        let bytes = Array(body.utf8)
        let store = StripeStore(
            settings: StripeSettings(apiKey: "sk_test_key123", webhookSecrets: [Self.secret]), now: { Self.now })
        return try await store.notification(
            InboundRequest(
                headers: ["stripe-signature": StubStripe.signature(bytes, secret: Self.secret, at: Self.now)],
                body: bytes))
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var body: String
        var member: String?
        var testDescription: String { (member ?? "the body") + ": " + body }
    }

    static let bad: [Bad] = [
        Bad(body: "not json", member: nil),
        Bad(body: "[1, 2]", member: nil),
        Bad(body: #"{"type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#, member: "id"),
        Bad(body: #"{"id":"","type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#, member: "id"),
        Bad(body: #"{"id":7,"type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#, member: "id"),
        Bad(body: #"{"id":"evt_1","data":{"object":{"id":"ch_1"}}}"#, member: "type"),
        Bad(body: #"{"id":"evt_1","type":"charge.refunded"}"#, member: "data"),
        Bad(body: #"{"id":"evt_1","type":"charge.refunded","data":{}}"#, member: "data.object"),
        Bad(body: #"{"id":"evt_1","type":"charge.refunded","data":{"object":"ch_1"}}"#, member: "data.object"),
        Bad(
            body: #"{"id":"evt_1","type":"charge.refunded","data":{"object":{"id":5}}}"#, member: "data.object.id"
        ),
        Bad(
            body: #"{"id":"evt_1","type":"charge.refunded","data":{"object":{"id":"ch_1","status":"a\u0000b"}}}"#,
            member: "data.object.status"),
    ]

    @Test(arguments: bad)
    func aBodyThatIsNoEventIsRefusedNamingTheMember(_ bad: Bad) async {
        do {
            _ = try await take(bad.body)
            Issue.record("accepted")
        } catch {
            #expect(error.status == 400)
            #expect(error.member == bad.member, "\(error.message)")
        }
    }

    @Test func aRefundEventKeepsWhatTheVerifierNeedsAsCanonicalJSON() async throws {
        let body = """
            {"id": "evt_9", "object": "event", "type": "charge.refunded", "created": 1800000000, "livemode": true,
             "data": {"object": {"id": "ch_9", "object": "charge", "amount": 999, "amount_refunded": 333,
              "payment_intent": "pi_9", "refunded": false, "billing_details": {"name": "Jo"}}}}
            """
        let inbound = try await take(body)
        #expect(inbound.messageID == "evt_9")
        #expect(inbound.evidence.receiptKind == "stripe.notification")
        #expect(
            inbound.evidence.payload
                == #"{"amount":"999","amount_refunded":"333","created":"1800000000","id":"evt_9","livemode":"true","object_id":"ch_9","payment_intent":"pi_9","type":"charge.refunded"}"#
        )
        let event = try #require(StripeEvent(payload: inbound.evidence.payload))
        #expect(event.type == "charge.refunded" && event.objectID == "ch_9" && event.livemode)
        #expect(event.created == Self.now)
        #expect(event.details == ["amount": "999", "amount_refunded": "333", "payment_intent": "pi_9"])
        #expect(event.evidence == inbound.evidence)
    }

    @Test func anEventThePipelineDoesNotActOnIsStillTaken() async throws {
        let inbound = try await take(#"{"id":"evt_2","type":"customer.created","data":{"object":{"id":"cus_1"}}}"#)
        #expect(inbound.messageID == "evt_2")
        #expect(StripeEvent(payload: inbound.evidence.payload)?.type == "customer.created")
    }

    @Test func anObjectWithoutAnIdIsTakenAndOnlyRecorded() async throws {
        let inbound = try await take(
            #"{"id":"evt_3","type":"balance.available","data":{"object":{"object":"balance"}}}"#)
        let event = try #require(StripeEvent(payload: inbound.evidence.payload))
        #expect(event.type == "balance.available" && event.objectID == nil)
    }

    @Test func aPayloadTheModuleDidNotWriteIsNoEvent() {
        #expect(StripeEvent(payload: "{}") == nil)
        #expect(StripeEvent(payload: "not json") == nil)
        #expect(StripeEvent(payload: #"{"id":"evt_1","object_id":"ch_1"}"#) == nil)
    }
}
