import Drills
import Foundation

/// What `iap-lab bench stages` measured: throughput and latency as users feel them, what each
/// process cost, and whether the books are right. Printed as text, or as JSON with `--json`.
struct StagesReport: Codable, Sendable {
    struct Run: Codable, Sendable {
        var mode: String
        var receipts: Int
        /// The mean size of a request's body (the receipt and its account), in bytes.
        var requestBytes: Int
        var clients: Int?
        var rate: Double?
        var validators: Int
        var concurrency: Int
        /// `IAP_RECEIPT_VERIFICATION` of the validators.
        var verification: String
        var stubLatencyMs: Int
        var stubErrorRate: Double
        var cores: Int
        /// Intakes, fulfillers and notifiers: this many of each.
        var replicas: Int
        /// `--apps`: the load spread over this many apps of an apps file.
        var apps: Int?
        /// `postgresql` or `sqlite`.
        var database: String
        /// `--cpu-limit`: each stage process in a cgroup of its own, capped at this share of a core.
        var cpuLimit: Double?
        /// `v1` or `v2`, with `--cpu-limit`.
        var cgroup: String?
        /// `--up`: every stage in one `iap up` process.
        var up: Bool?
        /// `--history`: receipts credited in the database before the load.
        var history: Int?
    }

    /// Requests per second and latency in milliseconds.
    struct Flow: Codable, Sendable {
        var perSecond: Double
        var seconds: Double
        var p50: Double
        var p99: Double
        var max: Double
    }

    struct ProcessFigures: Codable, Sendable {
        var name: String
        var cpuSeconds: Double
        var cpuMsPerReceipt: Double
        var contextSwitchesPerReceipt: Double
        var diskKBPerReceipt: Double
        /// Nil for a stage started during the run (`--validator-alone`).
        var idleRSSMB: Double?
        var peakRSSMB: Double
        /// With `--cpu-limit`: of the cap's 100 ms periods in which the stage ran, the share in
        /// which it used all it was allowed and was held back.
        var throttled: Double?
    }

    struct Books: Codable, Sendable {
        var credited: Int
        var notCredited: Int
        var auditFindings: Int
        var wrongBalances: Int
        var webhooksMissing: Int
        var webhooksDuplicated: Int
        var malformedWebhooks: Int

        var isRight: Bool {
            notCredited == 0 && auditFindings == 0 && wrongBalances == 0 && webhooksMissing == 0
                && webhooksDuplicated == 0 && malformedWebhooks == 0
        }
    }

    /// `--validator-alone`: one validator draining a full validate queue.
    struct ValidatorAlone: Codable, Sendable {
        var perSecond: Double
        var seconds: Double
        /// Including its start.
        var cpuMsPerReceipt: Double
        var peakRSSMB: Double

        /// Receipts one core of validator CPU carries: the figure that scales with cores.
        var perCore: Double { cpuMsPerReceipt > 0 ? 1000 / cpuMsPerReceipt : 0 }
    }

    /// How the verify requests travelled, when nginx served them (`--http2`).
    struct Endpoint: Codable, Sendable {
        /// Requests per protocol, such as `HTTP/2.0`.
        var protocols: [String: Int]
        var connections: Int

        init(_ served: [NginxTLSProxy.ServedRequest]) {
            protocols = Dictionary(grouping: served, by: \.httpProtocol).mapValues(\.count)
            connections = Set(served.map(\.connection)).count
        }
    }

    var run: Run
    /// POST /v1/receipts until its 202 (the row is durable).
    var submit: Flow
    /// Submit (or its due time) until the receipt's webhook arrived.
    var endToEnd: Flow
    var processes: [ProcessFigures]
    /// The pipeline's processes (every stage and the broker, not the stub store nor the load).
    var pipelineCPUMsPerReceipt: Double
    /// Every core's busy time over the run, whoever spent it, per receipt.
    var machineCPUMsPerReceipt: Double
    var machineBusy: Double
    var books: Books
    var validatorAlone: ValidatorAlone?
    var endpoint: Endpoint?
    /// Verify requests the stub store answered: more than one a receipt when receipts were
    /// verified twice (published again by a relay's sweep) or retried.
    var verifyRequests: Int?
    /// On PostgreSQL: what `pg_stat_statements` counted for the run's database, or why not.
    var statements: Statements?
    var statementsMissing: String?

    static func flow(_ latencies: [Duration], count: Int, over elapsed: Duration) -> Flow {
        let sorted = latencies.map { $0.seconds * 1000 }.sorted()
        func quantile(_ q: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
        }
        return Flow(
            perSecond: Double(count) / max(elapsed.seconds, 1e-9), seconds: elapsed.seconds,
            p50: quantile(0.5), p99: quantile(0.99), max: sorted.last ?? 0)
    }

    func printText() {
        let pace =
            run.rate.map { "open loop at \(Int($0)) receipts/s" }
            ?? "as fast as accepted, \(run.clients ?? 0) connections"
        print(
            "stages benchmark: \(run.receipts) receipts of \(run.requestBytes) bytes, \(pace); \(run.validators) validator(s) x \(run.concurrency) verifying \(run.verification), stub latency \(run.stubLatencyMs) ms, error rate \(run.stubErrorRate), \(run.cores) cores"
        )
        let cap =
            run.cpuLimit.map { ", each stage capped at \(col($0, 0, 2)) core (cgroup \(run.cgroup ?? "?"))" } ?? ""
        let stages =
            run.up == true
            ? "every stage in one `iap up` process" : "\(run.replicas) intake(s), fulfiller(s) and notifier(s)"
        print(
            "  \(stages) on \(run.database == "postgresql" ? "PostgreSQL" : "SQLite")\(cap)\(run.apps.map { ", the load spread over \($0) app(s)" } ?? "")\(run.history.map { ", \($0) receipts credited before the load" } ?? "")"
        )
        print("                          receipts/s     p50 ms     p99 ms     max ms")
        for (name, flow) in [("submit (202)", submit), ("end to end (webhook)", endToEnd)] {
            print(
                "  \(pad(name, 22)) \(col(flow.perSecond, 10, 0)) \(col(flow.p50, 10, 1)) \(col(flow.p99, 10, 1)) \(col(flow.max, 10, 1))"
            )
        }
        // The throttled column only when stages were capped.
        let capped = run.cpuLimit != nil
        print(
            "  process                  CPU s  ms/receipt  switches/receipt  disk KB/receipt  RSS idle MB  RSS peak MB\(capped ? "  throttled %" : "")"
        )
        for process in processes {
            let throttled = capped ? " " + (process.throttled.map { col($0 * 100, 12, 0) } ?? col("-", 12)) : ""
            print(
                "  \(pad(process.name, 22)) \(col(process.cpuSeconds, 7, 2)) \(col(process.cpuMsPerReceipt, 11, 3)) \(col(process.contextSwitchesPerReceipt, 17, 1)) \(col(process.diskKBPerReceipt, 16, 1)) \(process.idleRSSMB.map { col($0, 12, 1) } ?? col("-", 12)) \(col(process.peakRSSMB, 12, 1))\(throttled)"
            )
        }
        if run.database == "postgresql" {
            print("  pipeline CPU (stages + broker + PostgreSQL)  \(col(pipelineCPUMsPerReceipt, 0, 3)) ms/receipt")
        } else {
            print("  pipeline CPU (stages + broker)  \(col(pipelineCPUMsPerReceipt, 0, 3)) ms/receipt")
        }
        print(
            "  whole machine CPU               \(col(machineCPUMsPerReceipt, 0, 3)) ms/receipt, busy \(Int((machineBusy * 100).rounded())) %"
        )
        if let alone = validatorAlone {
            print(
                "  one validator alone, queue full: \(col(alone.perSecond, 0, 0)) receipts/s (\(col(alone.seconds, 0, 2)) s), \(col(alone.cpuMsPerReceipt, 0, 3)) ms CPU/receipt (\(col(alone.perCore, 0, 0)) receipts/s per core), peak RSS \(col(alone.peakRSSMB, 0, 1)) MB"
            )
        }
        if let endpoint {
            let protocols = endpoint.protocols.sorted { $0.key < $1.key }.map { "\($0.value) over \($0.key)" }
            print(
                "  verify endpoint (nginx): \(protocols.joined(separator: ", ")), \(endpoint.connections) connection(s)"
            )
        }
        if let verifyRequests {
            print(
                "  verify requests: \(verifyRequests) (\(col(Double(verifyRequests) / Double(max(run.receipts, 1)), 0, 3)) per receipt)"
            )
        }
        printStatements()
        let b = books
        print(
            "  books: \(b.isRight ? "right" : "WRONG"): \(b.credited) credited, \(b.notCredited) not credited, audit \(b.auditFindings == 0 ? "clean" : "\(b.auditFindings) findings"), \(b.wrongBalances) wrong balances, webhooks \(b.webhooksMissing) missing / \(b.webhooksDuplicated) twice"
        )
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
    }

    func col(_ value: Double, _ width: Int, _ decimals: Int) -> String {
        col(String(format: "%.\(decimals)f", value), width)
    }

    /// `text` right-aligned in `width` columns.
    func col(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
