import Database
import Foundation
import Hummingbird
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// `/v1/<store>/notifications`: what the stores push (Apple's App Store Server
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
            let plugin = candidates[0].1
            let method: HTTPRequest.Method = plugin.notificationRoute.method == .get ? .get : .post
            router.on(RouterPath("v1/\(id)/notifications"), method: method) { request, context in
                do {
                    if let retryAfter = limiter?.take(.init(store: id, client: context.clientKey)).retryAfterSeconds {
                        throw APIError.rateLimited(retryAfter: retryAfter)
                    }
                    return try await receive(request, from: candidates)
                } catch let error as APIError {
                    // A store that reads its own answer is told of a refusal in its words.
                    let refused = NotificationOutcome.refused(
                        status: Int(error.status.code), code: error.code, message: error.message, field: error.field)
                    guard let reply = plugin.reply(to: refused) else { throw error }
                    return Self.response(reply, retryAfter: error.retryAfter)
                }
            }
        }
    }

    /// The answer to a push whose plug-in says how: the store's words, the intake's status
    /// unless the store needs its own.
    static func response(_ reply: NotificationReply, retryAfter: Int? = nil) -> Response {
        var headers: HTTPFields = [.contentType: reply.contentType]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        // RFC 9110 15.5.2: every 401 names a scheme, as the intake's own do.
        if reply.status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: reply.body)))
    }

    /// The answer to `outcome` (stored, dropped or acknowledged): the plug-in's, or the intake's own.
    static func answer(_ outcome: NotificationOutcome, plugin: any StorePlugin) -> Response {
        if let reply = plugin.reply(to: outcome) { return response(reply) }
        let body =
            switch outcome {
            case .stored(let id): #"{"notification_id":"\#(id)"}"#
            case .acknowledged: #"{"acknowledged":true}"#
            default: #"{"ignored":"unknown_purchase"}"#
            }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Stores a notification of `app` durably with `accept` (which says whether it is new),
    /// relays a new one, and says its id; a store that fails is a `503`, so that the store
    /// sends it again.
    func store(
        _ evidence: Evidence, app: String,
        _ accept: (_ id: String, _ now: Date) async throws -> (id: String, created: Bool)
    ) async throws -> String {
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
        return accepted.id
    }
}
