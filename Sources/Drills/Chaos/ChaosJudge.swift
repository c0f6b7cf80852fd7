/// The promises a chaos run checks at quiescence, each as a rule over what was submitted and
/// what the pipeline holds (see ``ChaosViolation/Rule``).
public enum ChaosJudge {
    public static let finalStatuses: Set<String> = ["credited", "rejected", "dead"]
    /// What each kind grants, by currency.
    static let grants: [ChaosKind: (currency: String, amount: Int)] = [
        .coins: ("coins", 100), .replay: ("coins", 100), .gems: ("gems", 10), .xiaomi: ("coins", 100),
        .amazon: ("coins", 100),
    ]

    /// Every violation, in a stable order: by rule, then as found.
    public static func violations(_ submissions: [ChaosSubmission], _ seen: ChaosObservations) -> [ChaosViolation] {
        var found: [ChaosViolation] = []
        for submission in submissions {
            if let refusal = submission.refusal {
                found.append(.init(.refused, "receipt #\(submission.index) (\(submission.kind.rawValue)): \(refusal)"))
            }
        }
        found += receiptStatuses(submissions, seen)
        found += seen.auditFindings.map { .init(.audit, $0) }
        found += balances(submissions, seen)
        found += webhooks(submissions, seen)
        for (queue, depth) in seen.queueDepths.sorted(by: { $0.key < $1.key }) where depth != 0 {
            found.append(
                .init(.queueNotEmpty, "\(queue) holds \(depth.map(String.init) ?? "an unknown number of") messages"))
        }
        let order = Dictionary(uniqueKeysWithValues: ChaosViolation.Rule.allCases.enumerated().map { ($1, $0) })
        return found.enumerated().sorted { (order[$0.1.rule]!, $0.0) < (order[$1.1.rule]!, $1.0) }.map(\.1)
    }

    /// Final, with the status its kind calls for; of a receipt and its replay, one credited.
    private static func receiptStatuses(_ submissions: [ChaosSubmission], _ seen: ChaosObservations)
        -> [ChaosViolation]
    {
        var found: [ChaosViolation] = []
        let replayed = Set(submissions.compactMap(\.replayOf))
        for submission in submissions {
            guard let id = submission.receiptID else { continue }
            let name = "receipt #\(submission.index) \(id) (\(submission.kind.rawValue))"
            guard let receipt = seen.receipts[id], finalStatuses.contains(receipt.status) else {
                found.append(.init(.notFinal, "\(name) is \(seen.receipts[id]?.status ?? "missing")"))
                continue
            }
            let expected: Set<String>
            switch submission.kind {
            case .coins where replayed.contains(submission.index), .replay:
                expected = ["credited", "rejected already_credited"]
            case .coins, .gems, .subscription, .xiaomi, .amazon: expected = ["credited"]
            case .refunded: expected = ["rejected refunded"]
            case .foreignBundle: expected = ["rejected"]
            }
            let actual = receipt.status == "credited" ? "credited" : "\(receipt.status) \(receipt.reason ?? "")"
            if !expected.contains(where: { actual == $0 || (!$0.contains(" ") && receipt.status == $0) }) {
                found.append(
                    .init(
                        .wrongStatus,
                        "\(name) is \(actual.trimmingCharacters(in: .whitespaces)), not \(expected.sorted().joined(separator: " or "))"
                    ))
            }
        }
        // A transaction and its replay: exactly one of the two credited.
        let byIndex = Dictionary(uniqueKeysWithValues: submissions.map { ($0.index, $0) })
        for replay in submissions where replay.kind == .replay {
            guard let original = replay.replayOf.flatMap({ byIndex[$0] }) else { continue }
            let credited = [original, replay].filter { submission in
                submission.receiptID.flatMap { seen.receipts[$0]?.status } == "credited"
            }
            if credited.count > 1 {
                found.append(
                    .init(
                        .creditedTwice,
                        "receipts #\(original.index) and #\(replay.index) carry one transaction and both were credited")
                )
            }
        }
        return found
    }

    /// Each account holds what its accepted receipts grant, a replayed transaction once.
    private static func balances(_ submissions: [ChaosSubmission], _ seen: ChaosObservations) -> [ChaosViolation] {
        var expected: [String: [String: Int]] = [:]
        var vip: Set<String> = []
        var counted: Set<Int> = []
        for submission in submissions where submission.receiptID != nil {
            if expected[submission.accountID] == nil { expected[submission.accountID] = [:] }
            if submission.kind == .subscription { vip.insert(submission.accountID) }
            guard let grant = grants[submission.kind],
                counted.insert(submission.replayOf ?? submission.index).inserted
            else { continue }
            expected[submission.accountID, default: [:]][grant.currency, default: 0] += grant.amount
        }
        var found: [ChaosViolation] = []
        for (account, currencies) in expected.sorted(by: { $0.key < $1.key }) {
            for currency in ["coins", "gems"] {
                let want = currencies[currency, default: 0]
                let have = seen.balances[account]?[currency] ?? 0
                if want != have {
                    found.append(
                        .init(.wrongBalance, "\(account) holds \(have) \(currency), its receipts grant \(want)"))
                }
            }
            if vip.contains(account), !(seen.entitlements[account]?.contains("vip") ?? false) {
                found.append(.init(.wrongBalance, "\(account) bought vip and does not hold it"))
            }
        }
        return found
    }

    /// Every final receipt has a webhook row, and the receiver took each of its rows.
    private static func webhooks(_ submissions: [ChaosSubmission], _ seen: ChaosObservations) -> [ChaosViolation] {
        var found: [ChaosViolation] = []
        for submission in submissions {
            guard let id = submission.receiptID, let status = seen.receipts[id]?.status,
                finalStatuses.contains(status)
            else { continue }
            let rows = seen.webhookIDs[id] ?? []
            if rows.isEmpty {
                found.append(.init(.webhookNotDelivered, "receipt #\(submission.index) \(id) has no webhook"))
            }
            for row in rows where !seen.delivered.contains(row) {
                found.append(.init(.webhookNotDelivered, "\(row) of receipt #\(submission.index) \(id)"))
            }
        }
        return found
    }
}
