import Foundation
import Hummingbird
import Logging
import Synchronization

/// The backend's end of the benchmark: an HTTP server that takes the notifier's webhooks,
/// notes when each receipt's first one arrived and counts every delivery by `webhook-id`
/// (so a webhook sent twice shows). It does not check signatures: that is the tests' job,
/// and it would only add the benchmark's own CPU to the machine's.
final class WebhookCounter: Sendable {
    struct Tally: Sendable {
        /// Receipt id → when its first webhook arrived.
        var firstArrival: [String: ContinuousClock.Instant] = [:]
        /// `webhook-id` → deliveries.
        var deliveries: [String: Int] = [:]
        /// Requests without a `webhook-id` or a readable body.
        var malformed = 0

        /// Webhook ids delivered more than once.
        var duplicates: Int { deliveries.values.filter { $0 > 1 }.count }
    }

    private let tally = Mutex(Tally())
    private let bound = Mutex<Int?>(nil)

    /// Receipts that have had their webhook.
    var receiptsNotified: Int { tally.withLock { $0.firstArrival.count } }
    var snapshot: Tally { tally.withLock { $0 } }

    /// Serves until cancelled; learn the port with ``port()``.
    func run() async throws {
        let router = Router()
        router.post("/webhooks") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            self.record(id: request.headers[.init("webhook-id")!], body: Data(buffer: body))
            return .ok
        }
        var logger = Logger(label: "bench.webhooks")
        // Cancelling the server at the end makes Hummingbird log an error; nothing the
        // report needs, and it would land beside `--json`'s output.
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in self.bound.withLock { $0 = channel.localAddress?.port } },
            logger: logger)
        try await app.run()
    }

    /// The bound port, once the server listens.
    func port() async throws -> Int {
        while true {
            if let port = bound.withLock({ $0 }) { return port }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// What a webhook must carry to count as well formed.
    private struct Body: Decodable {
        var type: String
        var receipt_id: String?
    }

    private func record(id: String?, body: Data) {
        let now = ContinuousClock.now
        let event = try? JSONDecoder().decode(Body.self, from: body)
        tally.withLock { tally in
            guard let id, let event else {
                tally.malformed += 1
                return
            }
            tally.deliveries[id, default: 0] += 1
            if let receipt = event.receipt_id, tally.firstArrival[receipt] == nil { tally.firstArrival[receipt] = now }
        }
    }
}
