import Foundation
import Hummingbird
import Observability
import PipelineCore
import Store

/// `POST /v1/apple/notifications`: App Store Server Notifications V2.
///
/// Apple sends no bearer token; the notification's JWS signature is its credential, and
/// the validator checks it. This route only stores the payload durably, answers 200, and
/// lets the relay publish it like a receipt. Apple retries anything but a 200, so a
/// malformed body gets a 400 and a database that cannot take it a 503.
///
/// Open to anyone, so it is kept small: bodies up to 64 KiB (Apple's are a few KiB), a
/// rate limit per client address, and a look at the JWS header before anything is stored.
struct NotificationRoutes: Sendable {
    /// Apple's `signedPayload` is a few KiB.
    static let maxBodySize = 64 * 1024

    let notifications: AppleNotificationStore
    let relay: Relay
    let limiter: RateLimiter<String>?

    func register(on router: Router<some RemoteAddressRequestContext>) {
        router.post("v1/apple/notifications") { request, context in
            if let retryAfter = limiter?.take(context.clientAddress).retryAfterSeconds {
                throw APIError.rateLimited(retryAfter: retryAfter)
            }
            return try await self.receive(request)
        }
    }

    private func receive(_ request: Request) async throws -> Response {
        let body = try await request.jsonBody(maxSize: Self.maxBodySize)
        let payload = try Self.signedPayload(body.readableBytesView)
        let id = TimeOrderedID.make()
        let now = Date()
        let accepted: (id: String, created: Bool)
        do {
            accepted = try await notifications.acceptNotification(
                id: id, payload: payload, payloadHash: PayloadHash.notification(payload), now: now)
        } catch {
            throw APIError.unavailable
        }
        if accepted.created {
            PipelineMetrics.received(.notification).increment()
            relay.enqueue([
                Submission(
                    id: accepted.id, accountID: "", evidence: .notification(signedPayload: payload), submittedAt: now)
            ])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"notification_id":"\#(accepted.id)"}"#)))
    }

    /// The `signedPayload` of `{"signedPayload": "<JWS>"}`; other fields Apple may add are ignored.
    static func signedPayload(_ json: some Collection<UInt8>) throws(APIError) -> String {
        let object = try JSONFields.anyObject(json)
        guard let payload = object["signedPayload"] as? String else {
            throw APIError.invalid("missing_field", "signedPayload is required", field: "signedPayload")
        }
        if let problem = JWSHeaderCheck.problem(payload) {
            throw APIError.invalid("invalid_signed_payload", problem, field: "signedPayload")
        }
        return payload
    }
}
