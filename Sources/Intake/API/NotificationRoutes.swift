import Database
import Foundation
import Hummingbird
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// `POST /v1/<store>/notifications`: what the stores push (Apple's App Store Server
/// Notifications, Google's real-time developer notifications, Huawei's server notifications,
/// Stripe's events), each store's route its plug-in's (NotificationRoutes+Stores.swift).
///
/// A store sends no bearer token; its plug-in checks the credential it does send (Apple's
/// signature inside the body, Google's OIDC token, a signature over the body) and what it
/// needs to read; what it says is the validator's to judge. The route stores the payload
/// durably, answers 200, and lets the relay publish it like a receipt. Stores retry
/// anything but a 2xx, so a malformed or forged body gets a 4xx and a database that cannot
/// take it a 503.
///
/// Open to anyone, so it is kept small: bodies up to 64 KiB (a store's are a few KiB), a
/// rate limit per store route and client (an IPv6 client by its /64), and nothing stored that
/// a plug-in did not accept or that proves no app.
struct NotificationRoutes: Sendable {
    /// Apple's `signedPayload` is a few KiB.
    static let maxBodySize = 64 * 1024

    let notifications: NotificationRepository
    let relay: Relay
    /// One bucket per store route and client (``NotificationLimitKey``).
    let limiter: RateLimiter<NotificationLimitKey>?
    /// The stores configured here by app (``AppScope/key``), the default app's first, then each
    /// other app's (`IAP_APPS`); each store that pushes notifications in any of them has a route.
    let stores: [(app: String, stores: StoreRegistry)]

    func register(on router: Router<some RemoteAddressRequestContext>) {
        let ids = Set(stores.flatMap(\.stores.notifying.keys)).sorted()
        for id in ids {
            // Every app's plug-in for the store: its own credential (a push audience, a secret).
            let candidates = stores.compactMap { app in app.stores.notifying[id].map { (app.app, $0) } }
            router.post(RouterPath("v1/\(id)/notifications")) { request, context in
                if let retryAfter = limiter?.take(.init(store: id, client: context.clientKey)).retryAfterSeconds {
                    throw APIError.rateLimited(retryAfter: retryAfter)
                }
                return try await receive(request, from: candidates)
            }
        }
    }

    /// Stores a notification of `app` durably with `accept` (which says whether it is new),
    /// relays a new one, and answers `200 {"notification_id"}`; a store that fails is a `503`,
    /// so that the store sends it again.
    func store(
        _ evidence: Evidence, app: String,
        _ accept: (_ id: String, _ now: Date) async throws -> (id: String, created: Bool)
    ) async throws -> Response {
        let now = Date()
        let accepted: (id: String, created: Bool)
        do {
            accepted = try await accept(TimeOrderedID.make(), now)
        } catch {
            throw APIError.unavailable(error)
        }
        if accepted.created {
            PipelineMetrics.received(kind: evidence.kind).increment()
            var submission = Submission(id: accepted.id, accountID: "", evidence: evidence, submittedAt: now)
            submission.app = app
            // A store sends no trace context: its notification's trace starts at the intake's span.
            submission.traceparent = TraceParent.current
            relay.enqueue([submission])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"notification_id":"\#(accepted.id)"}"#)))
    }
}
