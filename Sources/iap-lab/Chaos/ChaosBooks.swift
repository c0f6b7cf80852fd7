import Broker
import Database
import Drills
import Foundation
import Repositories
import SettlementWriter

/// What a chaos run reads once the faults stop: whether the pipeline is quiet yet, and then
/// what it holds, for ``ChaosJudge``.
struct ChaosBooks {
    let database: any SQLDatabase
    let topology: PipelineTopology
    /// Where the queues are listed: the local node's rabbitmqctl, or a cluster's.
    let broker: BrokerControl

    /// Waits until every receipt in `receiptIDs` is final, the outbox has nothing pending and
    /// the pipeline's queues are empty. Returns nil then, or what is still stuck at `timeout`.
    func waitUntilQuiet(receiptIDs: Set<String>, timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let statuses = try await receipts()
            let open = receiptIDs.filter { !ChaosJudge.finalStatuses.contains(statuses[$0]?.status ?? "") }
            let pending = try await pendingWebhooks()
            let depths = try await queueDepths().filter { $0.value != 0 }
            if open.isEmpty, pending == 0, depths.isEmpty { return nil }
            guard ContinuousClock.now < deadline else {
                let byStatus = Dictionary(grouping: open) { statuses[$0]?.status ?? "missing" }
                    .map { "\($0.value.count) \($0.key) (e.g. \($0.value.sorted().first!))" }.sorted()
                return [
                    open.isEmpty ? nil : "receipts not final: " + byStatus.joined(separator: ", "),
                    pending == 0 ? nil : "\(pending) webhooks pending in the outbox",
                    depths.isEmpty
                        ? nil
                        : "queues holding messages: "
                            + depths.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.map(String.init) ?? "?")" }
                            .joined(separator: ", "),
                ].compactMap { $0 }.joined(separator: "; ")
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// Everything the judge needs; `delivered` is what the webhook receiver answered 2xx.
    func observe(delivered: Set<String>) async throws -> ChaosObservations {
        var seen = ChaosObservations()
        seen.receipts = try await receipts()
        seen.delivered = delivered
        seen.auditFindings = try await LedgerRepository(database).audit().map { "\($0.kind.rawValue): \($0.detail)" }
        seen.queueDepths = try await queueDepths()
        let (webhooks, balances, entitlements) = try await database.snapshot { db in
            await (
                try db.rows("SELECT id, receipt_id FROM notification_outbox WHERE receipt_id IS NOT NULL", []),
                try db.rows("SELECT account_id, currency, amount FROM balances", []),
                try db.rows("SELECT account_id, name FROM entitlements", [])
            )
        }
        for row in webhooks {
            seen.webhookIDs[try row.get("receipt_id", as: String.self), default: []].append(try row.get("id"))
        }
        for row in balances {
            seen.balances[try row.get("account_id", as: String.self), default: [:]][try row.get("currency")] =
                try row.get("amount", as: Int.self)
        }
        for row in entitlements {
            seen.entitlements[try row.get("account_id", as: String.self), default: []].insert(try row.get("name"))
        }
        return seen
    }

    /// Seconds from each receipt's commit at the intake to its final webhook's delivery (as
    /// the notifier recorded it), sorted: how long the faults made a receipt wait.
    func waits() async throws -> [Double] {
        let rows = try await database.snapshot { db in
            try await db.rows(
                """
                SELECT r.created_at AS accepted, o.delivered_at AS delivered FROM receipts r
                JOIN notification_outbox o ON o.receipt_id = r.id
                WHERE o.delivered_at IS NOT NULL AND o.type IN ('receipt.credited', 'receipt.rejected')
                """, [])
        }
        return try rows.map {
            try $0.get("delivered", as: Date.self).timeIntervalSince(try $0.get("accepted", as: Date.self))
        }.sorted()
    }

    /// Receipt id → status and reason, of every receipt.
    private func receipts() async throws -> [String: ChaosObservations.Receipt] {
        let rows = try await database.snapshot { db in try await db.rows("SELECT id, status, reason FROM receipts", [])
        }
        var receipts: [String: ChaosObservations.Receipt] = [:]
        for row in rows {
            receipts[try row.get("id")] = .init(
                status: try row.get("status"), reason: try row.get("reason", as: String?.self))
        }
        return receipts
    }

    private func pendingWebhooks() async throws -> Int {
        try await database.snapshot { db in
            try await db.value("SELECT COUNT(*) AS n FROM notification_outbox WHERE status = 'pending'", as: Int.self)
                ?? 0
        }
    }

    /// Messages in each of the pipeline's queues, ready and unacknowledged (`rabbitmqctl
    /// list_queues`, which counts both, unlike a passive declare). A queue never declared holds none.
    func queueDepths() async throws -> [String: Int?] {
        try await Self.queueDepths(topology: topology, broker: broker)
    }

    static func queueDepths(topology: PipelineTopology, broker: BrokerControl) async throws -> [String: Int?] {
        let names = Set(topology.topology.queues.map(\.name))
        let listing = try await broker.listQueues()
        var depths: [String: Int?] = [:]
        for line in listing.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count == 2, names.contains(String(fields[0])) else { continue }
            depths[String(fields[0])] = Int(fields[1])
        }
        return depths
    }
}
