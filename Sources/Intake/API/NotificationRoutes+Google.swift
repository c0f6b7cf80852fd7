import Foundation
import GooglePlay
import Hummingbird
import PipelineCore

/// `POST /v1/google/notifications`: Google Play's real-time developer notifications, as
/// Cloud Pub/Sub pushes them.
///
/// The push's OIDC token is its credential: a push without one that holds (Google's key,
/// this endpoint's audience, the push subscription's service account) is answered 401 and
/// stores nothing. A good one is stored once per Pub/Sub `messageId`, answered 200, and
/// published like a receipt; the validator reads from Google what the notice announces.
/// Pub/Sub delivers again anything but a 2xx, so a database that cannot take it gets a 503.
extension NotificationRoutes {
    /// The members of a push that are read (`GooglePubSubPush`).
    static let pushMembersRead = [
        ["subscription"], ["message", "data"], ["message", "messageId"], ["message", "message_id"],
        ["message", "publishTime"],
    ]

    func receiveGoogle(_ request: Request) async throws -> Response {
        guard let googlePush else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: "Google push notifications are not configured here (IAP_GOOGLE_PUSH_AUDIENCE)")
        }
        do {
            _ = try await googlePush.verify(authorization: request.headers[.authorization])
        } catch {
            throw APIError(.unauthorized, code: "unauthorized", message: "push token refused: \(error.reason)")
        }
        // A push is a few hundred bytes: Apple's limit serves.
        let body = try await request.jsonBody(maxSize: Self.maxBodySize)
        let notice: GoogleNotice
        do {
            // Strict as every body here: one reading of each key, and no control character in
            // what is read (Pub/Sub may add members; they are neither stored nor refused).
            if let path = JSONFields.firstRead(try StrictJSON.check(body.readableBytesView), Self.pushMembersRead) {
                throw JSONFields.refusal(path, members: [])
            }
            notice = try GooglePubSubPush.notice(from: body.readableBytesView)
        } catch let error as APIError {
            throw APIError.invalid("invalid_push", error.message, field: error.field)
        } catch let error as GooglePubSubPush.Problem {
            throw APIError.invalid("invalid_push", error.message, field: error.field.isEmpty ? nil : error.field)
        }
        return try await store(.googleNotice(notice), metric: .googleNotice) { id, now in
            try await notifications.acceptGoogleNotice(id: id, notice: notice, now: now)
        }
    }
}
