import Foundation
import GooglePlay
import Hummingbird
import Observability
import PipelineCore
import Store

/// `POST /v1/google/notifications`: Google Play's real-time developer notifications, as
/// Cloud Pub/Sub pushes them.
///
/// The push's OIDC token is its credential: a push without one that holds (Google's key,
/// this endpoint's audience, the push subscription's service account) is answered 401 and
/// stores nothing. A good one is stored once per Pub/Sub `messageId`, answered 200, and
/// published like a receipt; the validator reads from Google what the notice announces.
/// Pub/Sub delivers again anything but a 2xx, so a database that cannot take it gets a 503.
struct GoogleNotificationRoutes: Sendable {
    /// A push is a few hundred bytes.
    static let maxBodySize = 64 * 1024

    let notifications: AppleNotificationStore
    let relay: Relay
    let limiter: RateLimiter<String>?
    /// Nil when no push subscription is configured: every push is refused.
    let verifier: GooglePushTokenVerifier?

    func register(on router: Router<some RemoteAddressRequestContext>) {
        router.post("v1/google/notifications") { request, context in
            if let retryAfter = limiter?.take(context.clientAddress).retryAfterSeconds {
                throw APIError.rateLimited(retryAfter: retryAfter)
            }
            return try await self.receive(request)
        }
    }

    private func receive(_ request: Request) async throws -> Response {
        guard let verifier else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: "Google push notifications are not configured here (IAP_GOOGLE_PUSH_AUDIENCE)")
        }
        do {
            _ = try await verifier.verify(authorization: request.headers[.authorization])
        } catch {
            throw APIError(.unauthorized, code: "unauthorized", message: "push token refused: \(error.reason)")
        }
        let body = try await request.jsonBody(maxSize: Self.maxBodySize)
        let notice: GoogleNotice
        do {
            notice = try GooglePubSubPush.notice(from: body.readableBytesView)
        } catch {
            throw APIError.invalid("invalid_push", error.message, field: error.field.isEmpty ? nil : error.field)
        }
        let now = Date()
        let accepted: (id: String, created: Bool)
        do {
            accepted = try await notifications.acceptGoogleNotice(id: TimeOrderedID.make(), notice: notice, now: now)
        } catch {
            throw APIError.unavailable
        }
        if accepted.created {
            PipelineMetrics.received(.googleNotice).increment()
            relay.enqueue([
                Submission(id: accepted.id, accountID: "", evidence: .googleNotice(notice), submittedAt: now)
            ])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"notification_id":"\#(accepted.id)"}"#)))
    }
}
