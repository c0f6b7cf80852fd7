import Crypto
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A real HTTP server on 127.0.0.1 that plays the backend receiving webhooks: it records
/// every request, checks its Standard Webhooks signature, and answers as told.
///
/// Start one for the length of a test with ``withWebhookReceiver(secret:port:timestampTolerance:now:_:)``:
///
/// ```swift
/// try await withWebhookReceiver(secret: secret.encoded) { receiver in
///     receiver.failFirst(2)                        // the first two requests get 503
///     // ... point the notifier at receiver.url and run it ...
///     let deliveries = try await receiver.waitFor(count: 3, timeout: .seconds(10))
///     #expect(deliveries.allSatisfy { $0.signature == .valid })
///     #expect(receiver.deliveries(for: "evt_...").count == 3)
/// }
/// ```
///
/// By default a request answers `200`. In order, a request is answered:
/// 1. `503` (or the status given) while the ``failFirst(_:status:)`` budget lasts;
/// 2. the status given to ``fail(id:status:)`` if its `webhook-id` is listed;
/// 3. `401` if its signature does not verify and ``rejectsInvalidSignatures`` is on;
/// 4. `200` otherwise.
/// Every request is recorded, whatever the answer, when it arrives (before any
/// ``setResponseDelay(_:)`` delay).
///
/// The signature check is written here on its own, with swift-crypto, rather than borrowed
/// from the notifier, so that a test compares two independent readings of the spec.
public final class WebhookReceiver: Sendable {
    /// The path webhooks are accepted on; other paths answer 404 and are not recorded.
    public static let path = "/webhooks"

    /// One request as it arrived.
    public struct Delivery: Sendable {
        /// Header fields with lower-cased names; a repeated name keeps its last value.
        public var headers: [String: String]
        /// The body exactly as received.
        public var body: [UInt8]
        /// What checking the Standard Webhooks signature found.
        public var signature: SignatureCheck
        /// The status this receiver answered with.
        public var status: Int
        /// When it arrived, by the receiver's clock.
        public var receivedAt: Date

        /// `webhook-id`.
        public var id: String? { headers["webhook-id"] }
        /// `webhook-timestamp`, unix seconds.
        public var timestamp: Int64? { headers["webhook-timestamp"].flatMap { Int64($0) } }
        /// The body as UTF-8 text.
        public var bodyString: String { String(decoding: body, as: UTF8.self) }
        /// Whether this receiver answered 2xx, i.e. the sender may consider it delivered.
        public var wasAccepted: Bool { (200..<300).contains(status) }
        /// The value of a header, by name in any case.
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// The result of checking a request's Standard Webhooks signature.
    public enum SignatureCheck: Hashable, Sendable {
        /// Headers present, timestamp within tolerance, a `v1` signature matches.
        case valid
        /// Why it does not verify.
        case invalid(String)
        /// The receiver has no secret, so nothing was checked.
        case unchecked
    }

    /// The receiver did not see enough requests in time.
    public struct TimeoutError: Error, CustomStringConvertible {
        public let expected: Int
        public let received: Int
        public var description: String { "expected \(expected) webhook requests, saw \(received) before the timeout" }
    }

    private struct State {
        var port = 0
        var received: [Delivery] = []
        var failFirst = 0
        var failFirstStatus = 503
        var failingIDs: [String: Int] = [:]
        var responseDelay: Duration = .zero
        var rejectsInvalidSignatures = true
    }

    private let state = Mutex(State())
    /// The key's bytes (`SymmetricKey` is not `Sendable` in this swift-crypto).
    private let keyBytes: [UInt8]?
    private let timestampTolerance: Duration?
    private let now: @Sendable () -> Date

    init(secret: String?, timestampTolerance: Duration?, now: @escaping @Sendable () -> Date) throws {
        if let secret {
            guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) else {
                throw ReceiverError("the receiver's secret must be whsec_ followed by base64")
            }
            self.keyBytes = Array(key)
        } else {
            self.keyBytes = nil
        }
        self.timestampTolerance = timestampTolerance
        self.now = now
    }

    // MARK: - What a test reads

    /// The full URL to deliver to, such as `http://127.0.0.1:51234/webhooks`.
    public var url: String { "http://127.0.0.1:\(port)\(Self.path)" }

    /// The port the server listens on.
    public var port: Int { state.withLock { $0.port } }

    /// Every request so far, in order of arrival (a snapshot).
    public var received: [Delivery] { state.withLock { $0.received } }

    /// The requests answered 2xx so far, in order of arrival.
    public var accepted: [Delivery] { received.filter(\.wasAccepted) }

    /// Every request that carried `webhook-id: id`, retries included, in order of arrival.
    public func deliveries(for id: String) -> [Delivery] {
        received.filter { $0.id == id }
    }

    /// Waits until at least `count` requests matching `predicate` have arrived.
    /// - Parameters:
    ///   - count: How many to wait for.
    ///   - timeout: How long to wait.
    ///   - predicate: Which requests count; all of them unless given (e.g. `\.wasAccepted`).
    /// - Returns: All requests matching `predicate` when the count was reached.
    /// - Throws: ``TimeoutError`` if `timeout` passes first.
    @discardableResult
    public func waitFor(
        count: Int, timeout: Duration = .seconds(10), where predicate: @Sendable (Delivery) -> Bool = { _ in true }
    ) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = received.filter(predicate)
            if matching.count >= count { return matching }
            if ContinuousClock.now >= deadline { throw TimeoutError(expected: count, received: matching.count) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: - What a test tells it

    /// Answers the next `count` requests with `status` (503 unless given), whatever they carry.
    public func failFirst(_ count: Int, status: Int = 503) {
        state.withLock {
            $0.failFirst = count
            $0.failFirstStatus = status
        }
    }

    /// Answers every request for event `id` with `status` (503 unless given) until
    /// ``stopFailing(id:)``.
    public func fail(id: String, status: Int = 503) {
        state.withLock { $0.failingIDs[id] = status }
    }

    /// Lets requests for event `id` through again.
    public func stopFailing(id: String) {
        state.withLock { $0.failingIDs[id] = nil }
    }

    /// Holds every answer back by `delay`, to keep deliveries in flight.
    public func setResponseDelay(_ delay: Duration) {
        state.withLock { $0.responseDelay = delay }
    }

    /// Whether a request whose signature does not verify is answered 401 (on by default, as a
    /// real receiver would). Off, it is answered like any other and still recorded as invalid.
    public var rejectsInvalidSignatures: Bool {
        get { state.withLock { $0.rejectsInvalidSignatures } }
        set { state.withLock { $0.rejectsInvalidSignatures = newValue } }
    }

    // MARK: - Serving

    fileprivate func setPort(_ port: Int) {
        state.withLock { $0.port = port }
    }

    fileprivate func handle(_ request: Request) async throws -> Response {
        let buffer = try await request.body.collect(upTo: 16 << 20)
        let body = Array(buffer.readableBytesView)
        var headers: [String: String] = [:]
        for field in request.headers {
            headers[field.name.canonicalName.lowercased()] = field.value
        }
        let signature = check(headers: headers, body: body)
        let receivedAt = now()
        let (status, delay) = state.withLock { state -> (Int, Duration) in
            let status: Int
            if state.failFirst > 0 {
                state.failFirst -= 1
                status = state.failFirstStatus
            } else if let id = headers["webhook-id"], let failing = state.failingIDs[id] {
                status = failing
            } else if case .invalid = signature, state.rejectsInvalidSignatures {
                status = 401
            } else {
                status = 200
            }
            state.received.append(
                Delivery(headers: headers, body: body, signature: signature, status: status, receivedAt: receivedAt))
            return (status, state.responseDelay)
        }
        if delay > .zero {
            try? await Task.sleep(for: delay)
        }
        return Response(status: HTTPResponse.Status(code: status))
    }

    /// Standard Webhooks verification: `v1,` base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`,
    /// any of the space-separated signatures may match, timestamp within tolerance.
    private func check(headers: [String: String], body: [UInt8]) -> SignatureCheck {
        guard let keyBytes else { return .unchecked }
        let key = SymmetricKey(data: keyBytes)
        guard let id = headers["webhook-id"], let timestamp = headers["webhook-timestamp"],
            let signatures = headers["webhook-signature"]
        else { return .invalid("a webhook-id, webhook-timestamp or webhook-signature header is missing") }
        guard let seconds = Int64(timestamp) else { return .invalid("webhook-timestamp is not an integer") }
        if let timestampTolerance {
            let skew = abs(Double(seconds) - now().timeIntervalSince1970)
            if skew > Double(timestampTolerance.components.seconds) {
                return .invalid("webhook-timestamp is \(Int(skew)) s off")
            }
        }
        let signed = Data("\(id).\(timestamp).".utf8) + Data(body)
        for candidate in signatures.split(separator: " ") {
            guard candidate.hasPrefix("v1,"), let mac = Data(base64Encoded: String(candidate.dropFirst(3))) else {
                continue
            }
            if HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key) {
                return .valid
            }
        }
        return .invalid("no v1 signature matches")
    }
}

/// Runs a ``WebhookReceiver`` for the length of `body`, then stops it gracefully (answers in
/// flight are finished first, so a sender never sees a connection cut mid-answer).
///
/// - Parameters:
///   - secret: The `whsec_...` secret to verify signatures with; nil records without checking.
///   - port: The port to listen on; 0 (the default) picks a free one. Give the port of an
///     earlier receiver to bring "the same backend" back up.
///   - timestampTolerance: How far `webhook-timestamp` may be from `now`; nil skips the check
///     (for tests that pin the sender's clock far from the real one).
///   - now: The receiver's clock, for the timestamp check and ``WebhookReceiver/Delivery/receivedAt``.
///   - body: The test, given the running receiver.
/// - Returns: What `body` returns.
public func withWebhookReceiver<T: Sendable>(
    secret: String?,
    port: Int = 0,
    timestampTolerance: Duration? = .seconds(300),
    now: @escaping @Sendable () -> Date = { Date() },
    _ body: (WebhookReceiver) async throws -> T
) async throws -> T {
    let receiver = try WebhookReceiver(secret: secret, timestampTolerance: timestampTolerance, now: now)
    let router = Router()
    router.post("/webhooks") { request, _ in
        try await receiver.handle(request)
    }
    var logger = Logger(label: "webhook-receiver")
    logger.logLevel = .warning
    let (bound, boundContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
        onServerRunning: { channel in
            boundContinuation.yield(channel.localAddress?.port ?? 0)
            boundContinuation.finish()
        },
        logger: logger)

    let server = ServiceGroup(configuration: .init(services: [app], logger: logger))

    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            defer { boundContinuation.finish() }
            try await server.run()
        }
        var ports = bound.makeAsyncIterator()
        guard let port = await ports.next(), port > 0 else {
            // The server never came up: surface its error.
            try await group.next()
            throw ReceiverError("the webhook receiver did not start")
        }
        receiver.setPort(port)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(receiver))
        } catch {
            result = .failure(error)
        }
        await server.triggerGracefulShutdown()
        try await group.waitForAll()
        return try result.get()
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
