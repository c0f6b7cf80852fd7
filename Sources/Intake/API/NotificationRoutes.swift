import AppStore
import Foundation
import Hummingbird
import Observability
import PipelineCore
import Store
import StorePlugins

/// `POST /v1/apple/notifications`: App Store Server Notifications V2; and the plug-in
/// stores' (Google's, Huawei's, Stripe's) beside them (NotificationRoutes+Stores.swift).
///
/// Apple sends no bearer token; the notification's JWS signature is its credential. This
/// route checks it (the chain to the configured root and the ES256 signature; what the
/// notification says is the validator's to judge), stores the payload durably, answers
/// 200, and lets the relay publish it like a receipt. Apple retries anything but a 200, so
/// a malformed or unsigned body gets a 400 and a database that cannot take it a 503.
///
/// Open to anyone, so it is kept small: bodies up to 64 KiB (Apple's are a few KiB), a
/// rate limit per client address, and nothing stored that Apple did not sign.
struct NotificationRoutes: Sendable {
    /// Apple's `signedPayload` is a few KiB.
    static let maxBodySize = 64 * 1024

    let notifications: StoreNotificationStore
    let relay: Relay
    /// Checks that Apple signed a notification; its cache of validated chains makes each
    /// check after the first one ECDSA verification.
    let signatures: SignedDataAuthenticator
    /// One limit per client address for every store's notifications.
    let limiter: RateLimiter<String>?
    /// The plug-in stores that push notifications (NotificationRoutes+Stores.swift).
    let stores: StoreRegistry

    func register(on router: Router<some RemoteAddressRequestContext>) {
        let plugged = stores.notifying.map { id, store in
            ("v1/\(id)/notifications", { @Sendable request in try await receive(request, from: store) })
        }
        for (path, receive) in [("v1/apple/notifications", receiveApple)] + plugged
            as [(String, @Sendable (Request) async throws -> Response)]
        {
            router.post(RouterPath(path)) { request, context in
                if let retryAfter = limiter?.take(context.clientAddress).retryAfterSeconds {
                    throw APIError.rateLimited(retryAfter: retryAfter)
                }
                return try await receive(request)
            }
        }
    }

    private func receiveApple(_ request: Request) async throws -> Response {
        let body = try await request.jsonBody(maxSize: Self.maxBodySize)
        let payload = try Self.signedPayload(body.readableBytesView)
        do {
            try await signatures.authenticate(payload)
        } catch {
            throw APIError.invalid(
                "invalid_signed_payload", "signedPayload is not signed by the App Store (\(error))",
                field: "signedPayload")
        }
        return try await store(.notification(signedPayload: payload), metric: .notification) { id, now in
            try await notifications.acceptNotification(
                id: id, payload: payload, payloadHash: PayloadHash.notification(payload), now: now)
        }
    }

    /// Stores a notification durably with `accept` (which says whether it is new), relays
    /// a new one, and answers `200 {"notification_id"}`; a store that fails is a `503`, so
    /// that the store sends it again.
    func store(
        _ evidence: Evidence, metric: PipelineMetrics.ReceiptKind?,
        _ accept: (_ id: String, _ now: Date) async throws -> (id: String, created: Bool)
    ) async throws -> Response {
        let now = Date()
        let accepted: (id: String, created: Bool)
        do {
            accepted = try await accept(TimeOrderedID.make(), now)
        } catch {
            throw APIError.unavailable
        }
        if accepted.created {
            (metric.map(PipelineMetrics.received) ?? PipelineMetrics.received(kind: evidence.kind)).increment()
            var submission = Submission(id: accepted.id, accountID: "", evidence: evidence, submittedAt: now)
            // A store sends no trace context: its notification's trace starts at the intake's span.
            submission.traceparent = TraceParent.current
            relay.enqueue([submission])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"notification_id":"\#(accepted.id)"}"#)))
    }

    /// The `signedPayload` of `{"signedPayload": "<JWS>"}`; other fields Apple may add are ignored.
    static func signedPayload(_ json: some Collection<UInt8>) throws(APIError) -> String {
        let object = try JSONFields.anyObject(json, read: [["signedPayload"]])
        guard let payload = object["signedPayload"] as? String else {
            throw APIError.invalid("missing_field", "signedPayload is required", field: "signedPayload")
        }
        guard ReceiptRequest.isCompactJWS(payload) else {
            throw APIError.invalid(
                "invalid_signed_payload", "signedPayload must be a compact JWS (three base64url parts)",
                field: "signedPayload")
        }
        return payload
    }
}
