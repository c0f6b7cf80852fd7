import AppStore
import AppleStore
import Broker
import DatabaseSQLite
import Foundation
import GooglePlay
import HTTPTypes
import Huawei
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import PipelineCore
import PipelineTesting
import StorePlugins
import Stripe
import StubStore
import Testing

@testable import Intake

/// `IAP_NOTIFICATION_RATE_LIMIT`: one bucket per store route and client, the client counted
/// as the connection cap counts it (``ClientAddressKey``). A security probe flooded
/// `/v1/huawei/notifications` with unsigned notices (3,350 in 30 s from two addresses) and got
/// Apple's, Google's and Stripe's genuine notifications answered 429 from the shared bucket.
@Suite struct NotificationRateLimitTests {
    static let stripeSecret = "whsec_limits_0123456789"
    static let huawei = StubHuawei()

    /// Every store that takes notifications: Apple (under the stub's root), Google Play,
    /// Huawei (the stub's key) and Stripe.
    static var stores: StoreRegistry {
        StoreRegistry(
            known: [AppleStore.self, GooglePlayStore.self, HuaweiStore.self, StripeStore.self],
            configured: [
                LiveIntake.appleStore, GooglePlayStore(setup: nil),
                HuaweiStore(
                    settings: HuaweiSettings(
                        clientID: StubHuawei.clientID, clientSecret: StubHuawei.clientSecret,
                        publicKey: HuaweiPublicKey(base64: huawei.publicKeyBase64)!)),
                StripeStore(settings: StripeSettings(apiKey: "sk_test_limits", webhookSecrets: [stripeSecret])),
            ])
    }

    /// An order notice as Huawei sends it (unsigned), new each time.
    static func huaweiNotice(_ token: String) -> String {
        String(decoding: huawei.orderNotification(type: 1, token: token), as: UTF8.self)
    }

    /// A Stripe event signed now under ``stripeSecret``: its body and `Stripe-Signature`.
    static func stripeEvent(_ id: String) -> (body: String, signature: String) {
        let body = #"{"id":"\#(id)","object":"event","type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#
        let signature = StripeSignature.header(
            secret: stripeSecret, timestamp: Int64(Date().timeIntervalSince1970), body: Array(body.utf8))
        return (body, signature)
    }

    @Test func aFloodOnHuaweisRouteLeavesStripesAndApplesRoutesToTheSameClient() async throws {
        try await LiveIntake.run({
            $0.notificationRateLimit = RateLimit(perSecond: 1.0 / 3600, burst: 3)
            $0.stores = Self.stores
        }) { intake in
            // Given one client that flooded Huawei's route until it was refused
            var flood: [Int?] = []
            for index in 0..<8 {
                flood.append(
                    try await intake.request(
                        "POST", "/v1/huawei/notifications", body: Self.huaweiNotice("flood-\(index)"), token: nil)?
                        .status)
            }
            #expect(flood.prefix(3).allSatisfy { $0 != nil && $0 != 429 }, "\(flood)")
            #expect(flood.dropFirst(3).allSatisfy { $0 == 429 }, "\(flood)")

            // Then Stripe's and Apple's genuine notifications from that client are taken
            let event = Self.stripeEvent("evt_after_flood")
            let stripe = try await intake.request(
                "POST", "/v1/stripe/notifications", headers: ["Stripe-Signature": event.signature], body: event.body,
                token: nil)
            #expect(stripe?.status == 200, "\(stripe?.body ?? "no answer")")
            let apple = try await intake.request(
                "POST", "/v1/apple/notifications", body: LiveIntake.signedNotificationBody(), token: nil)
            #expect(apple?.status == 200, "\(apple?.body ?? "no answer")")
            // While Huawei's route still refuses it, with Retry-After
            let huawei = try await intake.request(
                "POST", "/v1/huawei/notifications", body: Self.huaweiNotice("flood-last"), token: nil)
            #expect(huawei?.status == 429 && LiveIntake.errorCode(huawei) == "rate_limited")
            #expect((huawei?.headers["retry-after"]).flatMap { Int($0) }.map { $0 >= 1 } == true)
            // And Stripe's route has a bucket of its own, as large: two more, then refused
            var stripes: [Int?] = []
            for index in 0..<3 {
                let more = Self.stripeEvent("evt_more_\(index)")
                stripes.append(
                    try await intake.request(
                        "POST", "/v1/stripe/notifications", headers: ["Stripe-Signature": more.signature],
                        body: more.body, token: nil)?.status)
            }
            #expect(stripes == [200, 200, 429])
        }
    }

    @Test func twoAddressesOfOneIPv6Slash64ShareABucketAndMappedIPv4CountsAsIPv4() async throws {
        // The loopback has one IPv6 address, so the requests go through the intake's own
        // router, each in the context a connection from that address would give it.
        try await Self.withRouter(RateLimit(perSecond: 1.0 / 3600, burst: 2)) { status async throws in
            // Given two addresses of one /64 that used its burst between them
            #expect(try await status("2001:db8:1:2::1") == 200)
            #expect(try await status("2001:db8:1:2:ffff:ffff:ffff:fffe") == 200)

            // Then a third address of that /64 is refused, and the first again
            #expect(try await status("2001:db8:1:2::77") == 429)
            #expect(try await status("2001:db8:1:2::1") == 429)
            // While the next /64 has a bucket of its own
            #expect(try await status("2001:db8:1:3::1") == 200)
            // And an IPv4 client is one bucket however its address comes: plain or mapped
            #expect(try await status("192.0.2.7") == 200)
            #expect(try await status("::ffff:192.0.2.7") == 200)
            #expect(try await status("192.0.2.7") == 429)
            #expect(try await status("192.0.2.8") == 200)
        }
    }

    /// Runs `body` with a function that posts a new signed Apple notification from an
    /// address through a real intake's router (a fresh SQLite file), and tells its status.
    static func withRouter(
        _ limit: RateLimit, _ body: (_ status: (String) async throws -> Int) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        var configuration = IntakeConfiguration(apiTokens: [LiveIntake.token])
        configuration.stores = LiveIntake.stores
        configuration.notificationRateLimit = limit
        let intake = Intake(
            configuration: configuration, database: database, catalog: Catalog(products: []),
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        let responder = intake.router().buildResponder()
        try await body { address in
            let channel = NIOAsyncTestingChannel()
            channel.remoteAddress = try SocketAddress(ipAddress: address, port: 443)
            let context = IntakeRequestContext(
                source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "test")))
            let request = Request(
                head: HTTPRequest(
                    method: .post, scheme: "http", authority: "127.0.0.1", path: "/v1/apple/notifications",
                    headerFields: [.contentType: "application/json"]),
                body: RequestBody(buffer: ByteBuffer(string: LiveIntake.signedNotificationBody())))
            return Int(try await responder.respond(to: request, context: context).status.code)
        }
    }
}
