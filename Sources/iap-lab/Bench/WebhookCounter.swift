import Foundation
import Hummingbird
import Logging
import PipelineCore
import StubStore
import Synchronization

/// The backend's end of the benchmark: an HTTP server that takes the notifier's webhooks,
/// notes when each receipt's first one arrived and counts every delivery by `webhook-id`
/// (so a webhook sent twice shows). It does not check signatures: that is the tests' job,
/// and it would only add the benchmark's own CPU to the machine's.
///
/// For `iap-lab chaos` it can play a flaky backend: answer 503 to a share of deliveries.
final class WebhookCounter: Sendable {
    struct Tally: Sendable {
        /// Receipt id → when its first webhook arrived.
        var firstArrival: [String: ContinuousClock.Instant] = [:]
        /// `webhook-id` → deliveries.
        var deliveries: [String: Int] = [:]
        /// Requests without a `webhook-id` or a readable body.
        var malformed = 0
        /// Deliveries answered 503 on purpose (not in ``deliveries``).
        var refused = 0
        /// `webhook-id` → deliveries answered 503.
        var refusals: [String: Int] = [:]

        /// Webhook ids delivered more than once.
        var duplicates: Int { deliveries.values.filter { $0 > 1 }.count }
    }

    private let tally = Mutex(Tally())
    private let bound = Mutex<Int?>(nil)
    private let failureRate: Double
    private let maxFailuresPerID: Int
    private let random: Mutex<SplitMix64>
    /// Where each delivery is noted as it is answered (`<webhook-id> <status> <receipt-id>`), if anywhere.
    private let log: FileHandle?
    /// The address it listens on.
    let host: String

    /// - Parameters:
    ///   - failureRate: the share of deliveries (0...1) answered 503, drawn from `seed`.
    ///   - maxFailuresPerID: no webhook id is refused more often: the notifier's backoff grows
    ///     to ten minutes after its fourth failure, longer than a run should wait.
    ///   - host: where it listens; the bridge's address when the notifier runs in a namespace.
    init(
        failureRate: Double = 0, maxFailuresPerID: Int = 2, seed: UInt64 = 0, log: FileHandle? = nil,
        host: String = "127.0.0.1"
    ) {
        self.host = host
        self.failureRate = failureRate
        self.maxFailuresPerID = maxFailuresPerID
        self.random = Mutex(SplitMix64(seed: seed))
        self.log = log
    }

    /// Receipts that have had their webhook.
    var receiptsNotified: Int { tally.withLock { $0.firstArrival.count } }
    var snapshot: Tally { tally.withLock { $0 } }
    /// Receipts with a webhook taken so far (without copying the tally).
    var receiptsSeen: Int { tally.withLock { $0.firstArrival.count } }

    /// Serves until cancelled; learn the port with ``port()``.
    func run() async throws {
        let router = Router()
        router.post("/webhooks") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            return self.record(id: request.headers[.init("webhook-id")!], body: Data(buffer: body))
        }
        var logger = Logger(label: "bench.webhooks")
        // Cancelling the server at the end makes Hummingbird log an error; nothing the
        // report needs, and it would land beside `--json`'s output.
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: 0), serverName: nil),
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

    private func record(id: String?, body: Data) -> HTTPResponse.Status {
        let now = ContinuousClock.now
        let event = try? JSONDecoder().decode(Body.self, from: body)
        let draw = failureRate > 0 ? random.withLock { Double.random(in: 0..<1, using: &$0) } : 1
        let status = tally.withLock { tally -> HTTPResponse.Status in
            guard let id, let event else {
                tally.malformed += 1
                return .ok
            }
            let refuse = draw < failureRate && tally.refusals[id, default: 0] < maxFailuresPerID
            // Written under the lock, so that lines of concurrent deliveries never interleave.
            log?.write(Data("\(id) \(refuse ? 503 : 200) \(event.receipt_id ?? "-")\n".utf8))
            if refuse {
                tally.refused += 1
                tally.refusals[id, default: 0] += 1
                return .serviceUnavailable
            }
            tally.deliveries[id, default: 0] += 1
            if let receipt = event.receipt_id, tally.firstArrival[receipt] == nil { tally.firstArrival[receipt] = now }
            return .ok
        }
        return status
    }
}
