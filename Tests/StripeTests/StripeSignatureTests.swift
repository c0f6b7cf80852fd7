import Foundation
import StorePlugins
import Stripe
import StubStore
import Testing

/// `Stripe-Signature` as Stripe documents it, checked by the plug-in: a table of deliveries
/// that hold and that do not, each refused with a 401 that stores nothing.
@Suite struct StripeSignatureTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = "whsec_current_secret"
    static let old = "whsec_previous_secret"
    static let body = Array(#"{"id":"evt_1","type":"ping","data":{"object":{"id":"cs_1"}}}"#.utf8)

    struct Delivery: CustomTestStringConvertible, Sendable {
        var name: String
        var header: String?
        var body: [UInt8] = StripeSignatureTests.body
        var accepted: Bool
        var testDescription: String { name }
    }

    static func signed(_ secret: String, at offset: TimeInterval = 0, body: [UInt8] = body) -> String {
        StubStripe.signature(body, secret: secret, at: now.addingTimeInterval(offset))
    }

    static let deliveries: [Delivery] = [
        Delivery(name: "signed with the current secret", header: signed(secret), accepted: true),
        Delivery(name: "signed with the rotation's other secret", header: signed(old), accepted: true),
        Delivery(name: "4:59 old", header: signed(secret, at: -299), accepted: true),
        Delivery(
            name: "a v0 and a bad v1 beside the good one",
            header: signed(secret) + ",v0=abcd,v1=" + String(repeating: "0", count: 64), accepted: true),
        Delivery(name: "signed with another secret", header: signed("whsec_someone_else"), accepted: false),
        Delivery(name: "stale beyond the tolerance", header: signed(secret, at: -301), accepted: false),
        Delivery(name: "from the future beyond the tolerance", header: signed(secret, at: 301), accepted: false),
        Delivery(name: "no header", header: nil, accepted: false),
        Delivery(name: "an empty header", header: "", accepted: false),
        Delivery(name: "garbled", header: "garbage", accepted: false),
        Delivery(name: "no timestamp", header: "v1=" + String(repeating: "a", count: 64), accepted: false),
        Delivery(name: "no v1", header: "t=1800000000,v0=abc", accepted: false),
        Delivery(
            name: "timestamp not a number", header: "t=soon,v1=" + String(repeating: "a", count: 64), accepted: false),
        Delivery(
            name: "the body altered after signing", header: signed(secret),
            body: Array(#"{"id":"evt_1","type":"ping","data":{"object":{"id":"cs_2"}}}"#.utf8), accepted: false),
        Delivery(
            name: "the signature of another timestamp",
            header: signed(secret).replacingOccurrences(of: "t=1800000000", with: "t=1800000001"), accepted: false),
    ]

    @Test(arguments: deliveries)
    func aDeliveryIsAcceptedOnlyWhenItsSignatureHolds(_ delivery: Delivery) async throws {
        let store = StripeStore(
            settings: StripeSettings(apiKey: "sk_test_key123", webhookSecrets: [Self.secret, Self.old]),
            now: { Self.now })
        let request = InboundRequest(
            headers: delivery.header.map { ["stripe-signature": $0] } ?? [:], body: delivery.body)
        do {
            let inbound = try await store.notification(request)
            #expect(delivery.accepted, "accepted")
            #expect(inbound.messageID == "evt_1")
            #expect(inbound.evidence.store == "stripe" && inbound.evidence.kind == "notification")
        } catch {
            #expect(!delivery.accepted, "refused: \(error.message)")
            #expect(error.status == 401 && error.code == "unauthorized")
        }
    }

    @Test func theHeaderThePluginWritesIsTheOneTheStubWrites() {
        let header = StripeSignature.header(secret: Self.secret, timestamp: 1_800_000_000, body: Self.body)
        #expect(header == Self.signed(Self.secret))
        #expect(header.hasPrefix("t=1800000000,v1=") && header.count == "t=1800000000,v1=".count + 64)
    }

    @Test func aRefusalNeverNamesTheSecret() async {
        let store = StripeStore(
            settings: StripeSettings(apiKey: "sk_test_key123", webhookSecrets: [Self.secret]), now: { Self.now })
        do {
            _ = try await store.notification(
                InboundRequest(headers: ["stripe-signature": Self.signed("whsec_other")], body: Self.body))
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(!error.message.contains("whsec"))
            #expect(error.message == "no v1 signature matches the body under the endpoint's secrets")
        }
    }
}
