import ArgumentParser
import Broker
import Database
import Foundation
import HTTPClient
import Logging
import Repositories
import SettlementWriter
import StubStore

/// What both pipeline benchmarks do to a running intake: mint receipts the stub store
/// vouches for, post them from many clients at once, wait until all are credited, report.
struct ReceiptLoad {
    let bodies: [[UInt8]]
    /// Whose receipts they are, when an apps file spreads them (body `i` is `apps.app(of: i)`'s,
    /// posted with its token).
    let apps: BenchApps?

    /// `count` receipt bodies of one 100-coin purchase each; body `i` is for account
    /// `accountPrefix-(i % accounts)`. With `pkcs7`, receipts are PKCS #7 containers signed
    /// as Apple signs them (an RSA signature each: about a millisecond a receipt to mint).
    init(
        count: Int, minter: StubAppStore, bundleID: String, transactionPrefix: String, accountPrefix: String,
        accounts: Int = 1_000, pkcs7: Bool = false, apps: BenchApps? = nil
    ) {
        self.apps = apps
        bodies = (0..<count).map { index in
            let issue = pkcs7 ? minter.issuePKCS7 : minter.issue
            let data = issue(
                StubReceipt(
                    bundleID: apps?.app(of: index).bundleID ?? bundleID,
                    transactions: [
                        StubReceipt.Transaction(
                            transactionID: "\(transactionPrefix)-\(index)", productID: "com.example.coins100")
                    ]))
            return Array(#"{"account_id": "\#(accountPrefix)-\#(index % accounts)", "receipt_data": "\#(data)"}"#.utf8)
        }
    }

    /// How requests are paced.
    enum Pace: Sendable {
        /// `clients` requests in flight, each sent when the previous one was answered.
        case closed(clients: Int)
        /// `rate` requests a second on a fixed schedule whatever the answers take (at most
        /// `inFlight` at once); latency counts from the scheduled time, so a stall is not hidden.
        case open(rate: Double, inFlight: Int)
    }

    /// One answered request.
    struct Sample: Sendable {
        var receiptID: String
        /// When it was due (open loop) or sent (closed loop).
        var start: ContinuousClock.Instant
        var latency: Duration
    }

    /// Posts every body with `clients` requests in flight; returns when all were answered 202.
    func post(to url: String, token: String, clients: Int) async throws {
        _ = try await post(to: url, token: token, pace: .closed(clients: clients))
    }

    /// Posts every body at `pace`; returns each request's sample once all were answered 202.
    func post(to url: String, token: String, pace: Pace) async throws -> [Sample] {
        try await post(to: [url], token: token, pace: pace)
    }

    /// Posts every body at `pace` to several intakes, request `i` to `urls[i % urls.count]` as a
    /// round-robin balancer would; returns each request's sample once all were answered 202.
    ///
    /// No task per request: the HTTP client calls back on its own thread, where a closed loop
    /// sends the next body, and an open loop's schedule is kept by one thread of its own
    /// (``Posting``). A task and a timer per request cost the load generator more than the
    /// intake at a steady rate (BENCHMARKS.md, issue 29, fourteenth session).
    func post(to urls: [String], token: String, pace: Pace) async throws -> [Sample] {
        let limit: Int
        switch pace {
        case .closed(let clients): limit = clients
        case .open(_, let inFlight): limit = inFlight
        }
        let client = try CurlHTTPClient(configuration: .init(maxConnections: limit, maxConnectionsPerHost: limit))
        let requests: @Sendable (Int) -> HTTPClient.HTTPRequest = { index in
            HTTPClient.HTTPRequest(
                method: .post, url: urls[index % urls.count],
                headers: [
                    (name: "Authorization", value: "Bearer \(apps?.app(of: index).token ?? token)"),
                    (name: "Content-Type", value: "application/json"),
                ],
                body: bodies[index])
        }
        let posting = Posting(count: bodies.count, client: client, request: requests)
        let outcome = await Result { try await posting.run(pace) }
        await client.shutdown()
        return try outcome.get()
    }

    private struct Accepted: Decodable { var receipt_id: String }

    static func receiptID(in body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(Accepted.self, from: Data(body)))?.receipt_id
    }

    /// Waits until `database` counts `target` credited receipts.
    static func waitForCredits(_ target: Int, in database: any SQLDatabase, until deadline: ContinuousClock.Instant)
        async throws
    {
        while try await ReceiptRepository(database).receiptStatusCounts()[.credited, default: 0] < target {
            guard ContinuousClock.now < deadline else { throw ValidationError("not all credited in time") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until no receipt in `database` is still `received`: the relay has published
    /// and marked every one (the intake-alone benchmark, where nothing validates them).
    static func waitUntilPublished(in database: any SQLDatabase, until deadline: ContinuousClock.Instant) async throws {
        while try await ReceiptRepository(database).receiptStatusCounts()[.received, default: 0] > 0 {
            guard ContinuousClock.now < deadline else { throw ValidationError("not all published in time") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `  accepted (202, durable)      1042 receipts/s  (4.80 s)`
    static func report(_ phase: String, receipts: Int, _ time: Duration) {
        let seconds = time.seconds
        print(
            "  \(phase.padding(toLength: 28, withPad: " ", startingAt: 0)) \(Int(Double(receipts) / seconds)) receipts/s  (\(String(format: "%.2f", seconds)) s)"
        )
    }

    /// A connection that declares nothing, logging errors only: for inspecting and
    /// removing a benchmark's queues. Close it when done.
    static func controlConnection(_ amqp: AMQPConfiguration) async throws -> AMQPConnection {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let connection = AMQPConnection(configuration: amqp, logger: logger)
        connection.start()
        do {
            try await connection.waitUntilConnected()
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// Removes `topology`'s queues and exchanges, as far as the broker can be reached.
    static func deleteTopology(_ topology: Topology, amqp: AMQPConfiguration) async {
        guard let connection = try? await controlConnection(amqp) else { return }
        _ = try? await connection.withControlChannel { channel throws(BrokerError) in
            for queue in topology.queues { try? channel.deleteQueue(queue.name) }
            for exchange in topology.exchanges { try? channel.deleteExchange(exchange.name) }
        }
        await connection.close()
    }
}
