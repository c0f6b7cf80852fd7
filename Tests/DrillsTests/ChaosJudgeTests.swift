import PipelineTesting
import Testing

/// The judge of `iap-lab chaos` on a run's books: clean books pass, and each kind of tampering
/// is caught under its own rule, so the chaos suite is able to fail.
@Suite struct ChaosJudgeTests {
    /// One receipt of every kind, a replay of the coins one, all settled as they should be.
    static let submissions: [ChaosSubmission] = [
        .init(index: 0, kind: .coins, accountID: "a", receiptID: "r0"),
        .init(index: 1, kind: .gems, accountID: "a", receiptID: "r1"),
        .init(index: 2, kind: .subscription, accountID: "b", receiptID: "r2"),
        .init(index: 3, kind: .refunded, accountID: "b", receiptID: "r3"),
        .init(index: 4, kind: .foreignBundle, accountID: "b", receiptID: "r4"),
        .init(index: 5, kind: .replay, accountID: "a", replayOf: 0, receiptID: "r5"),
    ]

    static var clean: ChaosObservations {
        var seen = ChaosObservations()
        seen.receipts = [
            "r0": .init(status: "credited"), "r1": .init(status: "credited"), "r2": .init(status: "credited"),
            "r3": .init(status: "rejected", reason: "refunded"),
            "r4": .init(status: "rejected", reason: "bundle_mismatch"),
            "r5": .init(status: "rejected", reason: "already_credited"),
        ]
        seen.webhookIDs = Dictionary(uniqueKeysWithValues: (0...5).map { ("r\($0)", ["evt_\($0)"]) })
        seen.delivered = Set((0...5).map { "evt_\($0)" })
        seen.balances = ["a": ["coins": 100, "gems": 10]]
        seen.entitlements = ["b": ["vip"]]
        seen.queueDepths = ["chaos.validate": 0, "chaos.fulfil": 0]
        return seen
    }

    @Test func cleanBooksHaveNoViolations() {
        #expect(ChaosJudge.violations(Self.submissions, Self.clean) == [])
    }

    @Test func theReplayMayBeTheOneCredited() {
        var seen = Self.clean
        seen.receipts["r0"] = .init(status: "rejected", reason: "already_credited")
        seen.receipts["r5"] = .init(status: "credited")
        #expect(ChaosJudge.violations(Self.submissions, seen) == [])
    }

    static let tamperings: [(String, ChaosViolation.Rule, @Sendable (inout ChaosObservations) -> Void)] = [
        ("a receipt still validating", .notFinal, { $0.receipts["r1"] = .init(status: "validating") }),
        ("a receipt lost", .notFinal, { $0.receipts["r2"] = nil }),
        ("a purchase dead-lettered", .wrongStatus, { $0.receipts["r1"] = .init(status: "dead", reason: "x") }),
        ("a refund credited", .wrongStatus, { $0.receipts["r3"] = .init(status: "credited") }),
        ("a receipt of another app credited", .wrongStatus, { $0.receipts["r4"] = .init(status: "credited") }),
        ("a replay credited too", .creditedTwice, { $0.receipts["r5"] = .init(status: "credited") }),
        ("an audit finding", .audit, { $0.auditFindings = ["balance_mismatch: a coins 200 vs ledger 100"] }),
        ("coins credited twice", .wrongBalance, { $0.balances["a"]?["coins"] = 200 }),
        ("gems missing", .wrongBalance, { $0.balances["a"]?["gems"] = nil }),
        ("vip missing", .wrongBalance, { $0.entitlements["b"] = nil }),
        ("a webhook never taken", .webhookNotDelivered, { $0.delivered.remove("evt_3") }),
        ("a final receipt without a webhook", .webhookNotDelivered, { $0.webhookIDs["r4"] = nil }),
        ("a queue holding a message", .queueNotEmpty, { $0.queueDepths["chaos.fulfil"] = 1 }),
        ("a queue the broker would not report", .queueNotEmpty, { $0.queueDepths["chaos.validate"] = .some(nil) }),
    ]

    @Test(arguments: 0..<tamperings.count)
    func tamperingIsCaughtUnderItsRule(index: Int) {
        let (what, rule, tamper) = Self.tamperings[index]
        var seen = Self.clean
        tamper(&seen)
        let violations = ChaosJudge.violations(Self.submissions, seen)
        #expect(violations.map(\.rule).contains(rule), "\(what): \(violations)")
    }

    @Test func aRefusedSubmissionIsAViolationAndGrantsNothing() {
        var submissions = Self.submissions
        submissions[1].receiptID = nil
        submissions[1].refusal = "422 idempotency_key_reused"
        var seen = Self.clean
        seen.balances["a"]?["gems"] = nil
        #expect(ChaosJudge.violations(submissions, seen).map(\.rule) == [.refused])
    }
}
