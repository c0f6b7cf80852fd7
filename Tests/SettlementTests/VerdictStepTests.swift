import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// The status machine receipts, notifications and checks share: what a verdict does to
/// what it is about, before any money moves.
@Suite struct VerdictStepTests {
    static func verdict(_ rawOutcome: String, reason: String?) -> Verdict {
        var verdict = Verdict(
            outcome: .valid, receiptID: "r1", accountID: "a1", reason: reason, attempts: 3,
            decidedAt: EngineFixture.t0)
        verdict.rawOutcome = rawOutcome
        return verdict
    }

    static let reasons: [String?] = [nil, "", "   ", "\n\t", "apple said 21010", " timeout "]
    static let rawOutcomes = Verdict.Outcome.allCases.map(\.rawValue) + ["paused", "", "VALID", "valid "]

    @Test(arguments: rawOutcomes, reasons)
    func aVerdictForWhatHasEndedAlready_changesNothing(_ rawOutcome: String, _ reason: String?) {
        // Given a receipt that ended already (a redelivered verdict)
        // When any verdict arrives for it
        let step = VerdictStep(Self.verdict(rawOutcome, reason: reason), hasEnded: true)
        // Then nothing changes
        #expect(step == .alreadyEnded)
    }

    /// The step a verdict of `outcome` with `reason` takes on something not yet ended.
    struct StepCase: Sendable, CustomTestStringConvertible {
        var outcome: String
        var reason: String?
        var step: VerdictStep
        var testDescription: String { "\(outcome.debugDescription) with \(reason.debugDescription) → \(step)" }
    }

    static let steps: [StepCase] = {
        var cases: [StepCase] = []
        for reason in reasons {
            let given = reason.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
            cases.append(StepCase(outcome: "valid", reason: reason, step: .settle))
            cases.append(StepCase(outcome: "retrying", reason: reason, step: .retrying(reason: given)))
            cases.append(
                StepCase(outcome: "rejected", reason: reason, step: .ended(.rejected, reason: given ?? "rejected")))
            cases.append(
                StepCase(outcome: "dead", reason: reason, step: .ended(.dead, reason: given ?? "dead-lettered")))
            for unknown in ["paused", "", "VALID", "valid "] {
                cases.append(StepCase(outcome: unknown, reason: reason, step: .unknownOutcome(unknown)))
            }
        }
        return cases
    }()

    @Test(arguments: steps)
    func aVerdict_stepsWhatItIsAbout_withANonEmptyReason(_ row: StepCase) {
        // Given something not yet ended
        // When a verdict of the case arrives
        let step = VerdictStep(Self.verdict(row.outcome, reason: row.reason), hasEnded: false)
        // Then it takes the step; an ending's reason is never blank, a given one is kept as written
        #expect(step == row.step)
        if case .ended(_, let reason) = step {
            #expect(!reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        }
    }

    @Test func theSpelledOutSteps_forTheMostCommonVerdicts() {
        // Given / When / Then: a few verdicts written out in full, as a reader checks them
        #expect(
            VerdictStep(Self.verdict("retrying", reason: "HTTP 503"), hasEnded: false) == .retrying(reason: "HTTP 503"))
        #expect(VerdictStep(Self.verdict("retrying", reason: nil), hasEnded: false) == .retrying(reason: nil))
        #expect(
            VerdictStep(Self.verdict("rejected", reason: "21002"), hasEnded: false)
                == .ended(.rejected, reason: "21002"))
        #expect(
            VerdictStep(Self.verdict("rejected", reason: " "), hasEnded: false) == .ended(.rejected, reason: "rejected")
        )
        #expect(
            VerdictStep(Self.verdict("dead", reason: nil), hasEnded: false) == .ended(.dead, reason: "dead-lettered"))
        #expect(VerdictStep(Self.verdict("refunded", reason: "x"), hasEnded: false) == .unknownOutcome("refunded"))
        #expect(VerdictStep.Ending.rejected.rawValue == "rejected")
        #expect(VerdictStep.Ending.dead.rawValue == "dead")
    }
}
