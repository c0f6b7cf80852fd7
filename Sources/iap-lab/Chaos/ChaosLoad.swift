import Drills
import Foundation
import HTTPClient
import PipelineCore
import StubStore
import Synchronization

/// The backend's side of a chaos run: a seeded mix of receipts of every kind the stub store
/// can vouch for (Apple's receipts, Xiaomi's orders and Amazon's receipts, the last two held
/// by the stub from ``stubOrders``), each posted as an app backend posts it: on a connection error, a timeout
/// or a 5xx again with the same `Idempotency-Key` until the intake answers 2xx (429: after
/// its `Retry-After`). Any other 4xx ends the receipt as a refusal, which the judge reports.
struct ChaosLoad: Sendable {
    struct Item: Sendable {
        var submission: ChaosSubmission
        var body: [UInt8]
    }

    /// Retries by cause, and how the load went.
    struct Outcome: Sendable {
        var submissions: [ChaosSubmission]
        var retries: [String: Int]
        var seconds: Double
    }

    /// The mix, out of 100.
    static let weights: [(ChaosKind, Int)] = [
        (.coins, 41), (.gems, 13), (.subscription, 10), (.refunded, 10), (.foreignBundle, 8), (.replay, 12),
        (.xiaomi, 3), (.amazon, 3),
    ]

    let items: [Item]
    /// What the stub store must hold for the plug-in stores' items (`stub-store --orders`).
    let stubOrders: [String]

    init(count: Int, accounts: Int, seed: UInt64, minter: StubAppStore, bundleID: String) {
        var random = SplitMix64(seed: seed)
        var items: [Item] = []
        var orders: [String] = []
        // `coins` receipts not replayed yet: each is replayed at most once.
        var replayable: [Int] = []
        let now = Date()
        for index in 0..<count {
            var draw = Int.random(in: 0..<100, using: &random)
            var kind = Self.weights.first {
                draw -= $0.1
                return draw < 0
            }!.0
            if kind == .replay, replayable.isEmpty { kind = .coins }
            let replayOf =
                kind == .replay ? replayable.remove(at: Int.random(in: 0..<replayable.count, using: &random)) : nil
            let account =
                replayOf.map { items[$0].submission.accountID }
                ?? "player-\(Int.random(in: 0..<accounts, using: &random))"
            if kind == .coins { replayable.append(index) }
            let body: String
            switch kind {
            case .xiaomi:
                orders.append(
                    StubOrders.xiaomi(
                        cpOrderID: "chaos-mi-\(index)", uid: "100010", productCode: "com.example.coins100", payFee: 600,
                        orderID: "21\(1_000_000_000 + index)"))
                body =
                    #"{"account_id": "\#(account)", "xiaomi": {"app_id": "\#(StubXiaomi.appID)", "#
                    + #""cp_order_id": "chaos-mi-\#(index)", "uid": "100010"}}"#
            case .amazon:
                orders.append(
                    StubOrders.amazon(
                        userID: "chaos-user", receiptID: "chaos-amzn-\(index)=:1:11", productID: "com.example.coins100")
                )
                body =
                    #"{"account_id": "\#(account)", "amazon": {"user_id": "chaos-user", "#
                    + #""receipt_id": "chaos-amzn-\#(index)=:1:11"}}"#
            default:
                let receipt = Self.receipt(kind, index: index, replayOf: replayOf, bundleID: bundleID, now: now)
                body = #"{"account_id": "\#(account)", "receipt_data": "\#(minter.issue(receipt))"}"#
            }
            items.append(
                Item(
                    submission: ChaosSubmission(index: index, kind: kind, accountID: account, replayOf: replayOf),
                    body: Array(body.utf8)))
        }
        self.items = items
        self.stubOrders = orders
    }

    /// What Apple would hold for a purchase of `kind`.
    static func receipt(_ kind: ChaosKind, index: Int, replayOf: Int?, bundleID: String, now: Date) -> StubReceipt {
        let id = "chaos-\(replayOf ?? index)"
        let purchased = now.addingTimeInterval(-86_400)
        var transaction = StubReceipt.Transaction(transactionID: id, productID: "com.example.coins100")
        switch kind {
        case .coins, .replay, .foreignBundle, .xiaomi, .amazon: break
        case .gems: transaction.productID = "com.example.gems10"
        case .subscription:
            transaction = .init(
                transactionID: id, productID: "com.example.vip.monthly", purchaseDate: purchased,
                expiresDate: now.addingTimeInterval(30 * 86_400), webOrderLineItemID: "\(id)-order")
        case .refunded:
            transaction.cancellationDate = transaction.purchaseDate.addingTimeInterval(3_600)
            transaction.cancellationReason = "0"
        }
        // A replay is another receipt (created later) holding the same transaction, so that the
        // intake takes it as a new receipt rather than the first one sent again.
        return StubReceipt(
            bundleID: kind == .foreignBundle ? "com.example.another-app" : bundleID, transactions: [transaction],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
    }

    /// Posts every item, `rate` a second on a fixed schedule with at most `clients` in flight;
    /// a receipt that has no 2xx after `patience` is given up as a refusal.
    /// `answered` is told every receipt id answered 2xx as the answer comes.
    func post(
        to url: String, token: String, rate: Double, clients: Int, patience: Duration, answered: AnsweredLog? = nil
    ) async throws -> Outcome {
        let client = try CurlHTTPClient(configuration: .init(maxConnections: clients, maxConnectionsPerHost: clients))
        let shared = Shared()
        let origin = ContinuousClock.now
        let submissions = try await withThrowingTaskGroup(of: [ChaosSubmission].self) { tasks in
            for _ in 0..<clients {
                tasks.addTask {
                    var done: [ChaosSubmission] = []
                    while true {
                        let index = shared.next.add(1, ordering: .relaxed).oldValue
                        guard index < items.count else { return done }
                        try await Task.sleep(until: origin + .seconds(Double(index) / rate), clock: .continuous)
                        let submission = try await submit(
                            items[index], to: url, token: token, client: client, patience: patience
                        ) { cause in shared.retries.withLock { $0[cause, default: 0] += 1 } }
                        if let id = submission.receiptID { answered?.add(id) }
                        done.append(submission)
                    }
                }
            }
            return try await tasks.reduce(into: []) { $0 += $1 }
        }
        await client.shutdown()
        return Outcome(
            submissions: submissions.sorted { $0.index < $1.index }, retries: shared.retries.withLock { $0 },
            seconds: (ContinuousClock.now - origin).seconds)
    }

    /// One receipt, posted until it is answered 2xx or 4xx; `retried` is told each retry's cause.
    private func submit(
        _ item: Item, to url: String, token: String, client: CurlHTTPClient, patience: Duration,
        retried: @Sendable (String) -> Void
    ) async throws -> ChaosSubmission {
        var submission = item.submission
        let request = HTTPClient.HTTPRequest(
            method: .post, url: url,
            headers: [
                ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                ("Idempotency-Key", "chaos-receipt-\(submission.index)"),
            ], body: item.body, timeout: .seconds(10))
        let deadline = ContinuousClock.now + patience
        var pause = Duration.milliseconds(50)
        while true {
            var cause: String
            var wait = pause
            do {
                let response = try await client.execute(request)
                switch response.status {
                case 200..<300:
                    submission.receiptID = Self.receiptID(in: response.body)
                    if submission.receiptID == nil { submission.refusal = "\(response.status) without a receipt_id" }
                    return submission
                case 429:
                    cause = "429"
                    wait = .seconds(Double(response.header("Retry-After") ?? "") ?? 1)
                case 500..<600: cause = "5xx"
                default:
                    submission.refusal = "\(response.status) \(response.bodyString)"
                    return submission
                }
            } catch {
                cause = "connection"
            }
            guard ContinuousClock.now + wait < deadline else {
                submission.refusal = "no 2xx in \(patience) (last: \(cause))"
                return submission
            }
            retried(cause)
            try await Task.sleep(for: wait)
            pause = min(pause * 2, .seconds(1))
        }
    }

    /// What the clients share: the next item to post, the retries so far.
    private final class Shared: Sendable {
        let next = Atomic<Int>(0)
        let retries = Mutex<[String: Int]>([:])
    }

    private struct Accepted: Decodable { var receipt_id: String }

    private static func receiptID(in body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(Accepted.self, from: Data(body)))?.receipt_id
    }
}
