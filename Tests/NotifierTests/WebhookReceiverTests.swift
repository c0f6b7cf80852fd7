import Foundation
import HTTPClient
import Notifier
import PipelineTesting
import Testing

/// The receiver is a test helper others rely on: its own verdicts must be right.
@Suite struct WebhookReceiverTests {
    func post(_ client: CurlHTTPClient, to url: String, id: String, signer: WebhookSigner, body: String = "{}")
        async throws -> Int
    {
        let bytes = Array(body.utf8)
        let request = HTTPRequest(
            method: .post, url: url, headers: signer.headers(id: id, timestamp: Date(), body: bytes), body: bytes)
        return try await client.execute(request).status
    }

    @Test func itVerifiesSignaturesOnItsOwnAndAnswersAsTold() async throws {
        let client = try CurlHTTPClient()
        let good = WebhookSigner(secret: Fixture.secret)
        let forger = WebhookSigner(secret: .generate())
        try await withWebhookReceiver(secret: Fixture.secret.encoded) { receiver async throws in
            // A good signature is accepted, a forged one refused and both recorded
            #expect(try await post(client, to: receiver.url, id: "evt_good", signer: good) == 200)
            #expect(try await post(client, to: receiver.url, id: "evt_forged", signer: forger) == 401)
            #expect(receiver.deliveries(for: "evt_good").first?.signature == .valid)
            #expect(receiver.deliveries(for: "evt_forged").first?.signature == .invalid("no v1 signature matches"))

            // Told to fail an id, it does until told to stop
            receiver.fail(id: "evt_good", status: 500)
            #expect(try await post(client, to: receiver.url, id: "evt_good", signer: good) == 500)
            receiver.stopFailing(id: "evt_good")
            #expect(try await post(client, to: receiver.url, id: "evt_good", signer: good) == 200)

            // Lenient, it answers a forgery 200 but still records it as invalid
            receiver.rejectsInvalidSignatures = false
            #expect(try await post(client, to: receiver.url, id: "evt_forged2", signer: forger) == 200)
            #expect(receiver.deliveries(for: "evt_forged2").first?.signature != .valid)

            // A request without the headers is recorded as invalid
            let bare = try await client.execute(
                HTTPRequest(method: .post, url: receiver.url, headers: [("content-type", "application/json")]))
            #expect(bare.status == 200)
            if case .invalid = receiver.received.last?.signature {} else { Issue.record("a bare request verified") }

            #expect(receiver.received.map(\.status) == [200, 401, 500, 200, 200, 200])
            #expect(receiver.accepted.count == 4)

            // And waiting for more than arrived times out, saying how many did
            await #expect(throws: WebhookReceiver.TimeoutError.self) {
                try await receiver.waitFor(count: 7, timeout: .milliseconds(50))
            }
        }
        await client.shutdown()
    }

    @Test func itRefusesStaleTimestampsByItsOwnClock() async throws {
        let client = try CurlHTTPClient()
        let clock = TestClock(Date().addingTimeInterval(3600))
        try await withWebhookReceiver(secret: Fixture.secret.encoded, now: clock.function) { receiver async throws in
            #expect(
                try await post(client, to: receiver.url, id: "evt_old", signer: WebhookSigner(secret: Fixture.secret))
                    == 401)
            #expect(receiver.received.first?.signature != .valid)
        }
        await client.shutdown()
    }
}
