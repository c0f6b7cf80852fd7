import Drills
import Foundation

/// What `iap-lab chaos` prints: the faults it dealt, how the pipeline came out, and every
/// violation by name.
struct ChaosReport {
    var receipts: Int
    var seed: UInt64
    var load: ChaosLoad.Outcome
    var kills: [String: Int]
    var unexpectedExits: [String: Int]
    var events: [String]
    /// The plan's timed faults (`--cluster`), as they went.
    var faults: [ChaosFaultRecord]
    var brokerRestarted: Bool
    var outageSeconds: Double
    var webhooksRefused: Int
    var webhooksDelivered: Int
    /// Deliveries of a webhook the receiver had already taken (same `webhook-id`).
    var webhooksRepeated: Int
    /// Seconds from commit to final webhook, per receipt, sorted.
    var waits: [Double]
    var chaosSeconds: Double
    var settleSeconds: Double
    /// What was not final or not delivered when the settle timeout ran out.
    var stuck: String?
    /// `kind: status reason` → receipts.
    var statuses: [String: Int]
    var violations: [ChaosViolation]
    var seconds = 0.0
    /// Cluster faults left out, each with its reason.
    var skippedFaults: [String] = []
    /// Power cuts dealt (`--power`).
    var powerCuts = 0
    /// What `--soak`'s samples say (``SoakSummary``).
    var soak: [String] = []

    func printText() {
        let accepted = load.submissions.filter { $0.receiptID != nil }.count
        print("iap-lab chaos: \(receipts) receipts, seed \(seed)")
        print("  load        \(accepted) accepted (2xx) in \(format(load.seconds)) s; retries: \(tally(load.retries))")
        let total = kills.values.reduce(0, +)
        print("  kills       \(total) SIGKILLs: \(tally(kills))")
        if powerCuts > 0 {
            print(
                "  power       \(powerCuts) cuts: every stage and server SIGKILLed at once and the volume's unsynced writes dropped"
            )
        }
        if !unexpectedExits.isEmpty { print("  exits       stages that exited unasked: \(tally(unexpectedExits))") }
        if faults.contains(where: { $0.summary.hasPrefix("RabbitMQ node") }) {
            print("  broker      a cluster: its nodes' faults below take the place of one app stop")
        } else {
            print("  broker      RabbitMQ app stopped and started: \(brokerRestarted ? "yes" : "no")")
        }
        for (index, fault) in faults.enumerated() {
            print("  \(index == 0 ? "cluster " : "        ")    \(fault.summary)")
        }
        for skipped in skippedFaults { print("  skipped     \(skipped)") }
        print("  verify      endpoint away for \(format(outageSeconds)) s")
        print(
            "  webhooks    \(webhooksDelivered) taken, \(webhooksRepeated) of them again with an id already taken, \(webhooksRefused) answered 503"
        )
        if let longest = waits.last {
            let at = { (share: Double) in waits[min(waits.count - 1, Int(Double(waits.count) * share))] }
            print(
                "  waits       commit to final webhook: p50 \(format(at(0.5))) s, p99 \(format(at(0.99))) s, longest \(format(longest)) s"
            )
        }
        print(
            "  time        \(format(chaosSeconds)) s under faults, \(format(settleSeconds)) s to settle, \(format(seconds)) s in all"
        )
        for (index, line) in soak.enumerated() { print("  \(index == 0 ? "soak   " : "       ")     \(line)") }
        print("  receipts by kind and final status:")
        for (key, count) in statuses.sorted(by: { $0.key < $1.key }) { print("    \(key): \(count)") }
        print("  timeline:")
        for event in events { print("    \(event)") }
        if let stuck { print("NOT QUIET after the settle timeout: \(stuck)") }
        if violations.isEmpty {
            print("result: no violations")
        } else {
            let byRule = Dictionary(grouping: violations, by: \.rule)
            print(
                "result: \(violations.count) violations (\(byRule.map { "\($0.key.rawValue) \($0.value.count)" }.sorted().joined(separator: ", ")))"
            )
            for violation in violations.prefix(100) { print("  VIOLATION \(violation)") }
            if violations.count > 100 { print("  … and \(violations.count - 100) more") }
        }
    }

    private func tally(_ counts: [String: Int]) -> String {
        counts.isEmpty
            ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }
}

extension ChaosReport {
    /// Accepted receipts by kind and final status: `coins credited` → 212.
    static func count(_ seen: ChaosObservations, _ submissions: [ChaosSubmission]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for submission in submissions {
            let receipt = submission.receiptID.flatMap { seen.receipts[$0] }
            let status =
                receipt.map { [$0.status, $0.reason].compactMap { $0 }.joined(separator: " ") } ?? "refused"
            counts["\(submission.kind.rawValue): \(status)", default: 0] += 1
        }
        return counts
    }
}

extension Result where Failure == any Error {
    /// `Result(catching:)` for async work.
    init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
