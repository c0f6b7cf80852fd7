import Crypto
import Foundation
import Hummingbird
import NIOCore
import Observability
import PipelineCore
import StorePlugins

/// One store's notification: its plug-in is the judge of the request. It checks the
/// credential the store sends and reads what it needs; a request it refuses is answered with
/// its status and code and stores nothing. One it accepts is stored once per the store's own
/// id for it (or its payload, for a store that names none), answered 200 and relayed like a
/// receipt.
extension NotificationRoutes {
    /// - Parameter candidates: the store's plug-in of each app that has it, by app
    ///   (``AppScope/key``), the default app's first: the first whose credential holds takes
    ///   the request, and the notification is that app's. One that proves no app (a hint)
    ///   is the app's that recorded the purchase it names, or is dropped unstored.
    func receive(_ request: Request, from candidates: [(app: String, plugin: any StorePlugin)]) async throws
        -> Response
    {
        let store = candidates[0].plugin
        try Self.checkContentType(request, route: store.notificationRoute)
        let body: ByteBuffer
        if case .checkedFirst(let read) = store.notificationBody {
            body = try await request.jsonBody(maxSize: Self.maxBodySize)
            _ = try JSONFields.anyObject(body.readableBytesView, read: read)
        } else {
            // Stores' notifications are a few KiB: Apple's limit serves.
            body = try await request.body.collect(upTo: Self.maxBodySize)
        }
        var headers: [String: String] = [:]
        for field in request.headers where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        let inbound = InboundRequest(
            headers: headers, body: Array(body.readableBytesView), query: request.uri.query ?? "")
        var (app, accepted): (String, InboundNotification)
        do {
            (app, accepted) = try await Self.firstAccepting(candidates, inbound)
        } catch {
            throw APIError(
                HTTPResponse.Status(code: error.status), code: error.code, message: error.message, field: error.member)
        }
        if case .checkedAfter(let read, let code) = store.notificationBody {
            try Self.check(request, body: body.readableBytesView, read: read, code: code)
        }
        if case .acknowledgement = accepted.proof { return Self.answer(.acknowledged, plugin: store) }
        if case .hint(let original) = accepted.proof {
            guard let recorder = try await recordingApp(of: original, among: candidates) else {
                PipelineMetrics.notificationsDropped(store: store.id).increment()
                return Self.answer(.dropped, plugin: store)
            }
            app = recorder
        }
        let evidence = StoreEvidence(
            store: store.id, kind: StoreEvidence.notificationKind, payload: accepted.evidence.payload)
        let id = try await self.store(.store(evidence), app: app) { id, now in
            switch accepted.keyedBy {
            case .payloadHash:
                try await notifications.acceptNotification(
                    id: id, app: app, store: store.id, payload: evidence.payload, payloadHash: accepted.messageID,
                    now: now)
            case .messageID:
                try await notifications.acceptStoreNotification(
                    id: id, app: app, store: store.id, messageID: Self.messageKey(accepted.messageID, store: store.id),
                    formerKeys: accepted.formerKeys, payload: evidence.payload, now: now)
            }
        }
        return Self.answer(.stored(id: id), plugin: store)
    }

    /// `415` for a push in another media type than its route takes (``NotificationRoute/contentTypes``).
    static func checkContentType(_ request: Request, route: NotificationRoute) throws(APIError) {
        guard !route.contentTypes.isEmpty else { return }
        let type = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type, route.contentTypes.contains(type) else {
            throw APIError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: "send Content-Type: " + route.contentTypes.joined(separator: " or "))
        }
    }

    /// The app that recorded the purchase a hint names, if it has this store here: nil for a
    /// purchase no app recorded (one lookup, no call to the store).
    private func recordingApp(
        of originalTransactionID: String, among candidates: [(app: String, plugin: any StorePlugin)]
    )
        async throws -> String?
    {
        let recorder: String?
        do {
            recorder = try await notifications.appOfRecordedPurchase(originalTransactionID: originalTransactionID)
        } catch {
            throw APIError.unavailable(error)
        }
        return recorder.flatMap { app in candidates.contains { $0.app == app } ? app : nil }
    }

    /// The notification as the first app's plug-in whose credential holds reads it, with that
    /// app. Only a credential that does not hold (401) passes the request on to the next app's;
    /// anything else is the answer. All refusing it, the default app's refusal is.
    static func firstAccepting(_ candidates: [(app: String, plugin: any StorePlugin)], _ request: InboundRequest)
        async throws(StoreInputError) -> (app: String, notification: InboundNotification)
    {
        var first: StoreInputError?
        for (app, plugin) in candidates {
            do {
                return (app, try await plugin.notification(request))
            } catch  where error.status == 401 {
                first = first ?? error
            }
        }
        throw first ?? .unauthorized("no app takes this store's notifications")
    }

    /// A JSON body checked as strictly as every body the intake reads: one reading of each
    /// key, and no control character in what is `read` (a store may add members; they are
    /// neither stored nor refused). After the plug-in, so that a push whose credential does
    /// not hold is a 401 whatever its body.
    static func check(_ request: Request, body: some Collection<UInt8>, read: [[String]], code: String)
        throws(APIError)
    {
        guard request.isJSON else { throw APIError.unsupportedMediaType }
        do throws(APIError) {
            if let path = JSONFields.firstRead(try StrictJSON.check(body), read) {
                throw JSONFields.refusal(path, members: [])
            }
        } catch {
            throw APIError.invalid(code, error.message, field: error.field)
        }
    }

    /// The longest `<store>:<message id>` the table keeps (`message_id`, 1-128 characters).
    static let maxMessageKey = 128

    /// The store's id for a notification as the table can keep it: itself, or, when
    /// `<store>:<id>` would be longer than the column takes (Stripe's ids may run to 255
    /// characters), `sha256:` and its digest, the same for the same id, so that the store's
    /// retries still find the first row.
    static func messageKey(_ messageID: String, store: String) -> String {
        guard store.utf8.count + 1 + messageID.utf8.count > maxMessageKey else { return messageID }
        return "sha256:" + SHA256.hash(data: Array(messageID.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
