import Database
import DatabaseSQLite
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import Intake

/// A commit of one receipt waits for the next only when the arrival rate says it is due
/// within the wait; every request is still answered from a durable row.
@Suite struct GroupCommitPacingTests {
    private let t0 = ContinuousClock.now

    private func pacing(maxWait: Duration, gapsMs: [Int]) -> CommitPacing {
        var pacing = CommitPacing(maxWait: maxWait)
        var at = t0
        pacing.arrived(at: at)
        for gap in gapsMs {
            at += .milliseconds(gap)
            pacing.arrived(at: at)
        }
        return pacing
    }

    @Test func aCommitWaitsForTheNextReceiptWhenItIsDueWithinTheWait() {
        // 400 receipts a second: one every 2.5 ms.
        let steady = pacing(maxWait: .milliseconds(3), gapsMs: Array(repeating: 2, count: 5) + [3, 3, 3])
        let wait = steady.wait(pending: 1)
        #expect(wait != nil)
        #expect(wait.map { $0 > .milliseconds(2) && $0 <= .milliseconds(3) } == true, "\(String(describing: wait))")
        // Two already waiting: they go together at once.
        #expect(steady.wait(pending: 2) == nil)
    }

    @Test func nothingWaitsBelowTheRateTheWaitCanServe() {
        // 100 receipts a second: the next is 10 ms away, past a 3 ms wait.
        #expect(pacing(maxWait: .milliseconds(3), gapsMs: Array(repeating: 10, count: 8)).wait(pending: 1) == nil)
        // The first receipt after start: no rate known yet.
        #expect(pacing(maxWait: .milliseconds(3), gapsMs: []).wait(pending: 1) == nil)
        // Turned off.
        #expect(pacing(maxWait: .zero, gapsMs: Array(repeating: 1, count: 8)).wait(pending: 1) == nil)
    }

    @Test func aQuietSpellEndsTheWaitingAndABurstBringsItBack() {
        let busy = Array(repeating: 1, count: 10)
        #expect(pacing(maxWait: .milliseconds(3), gapsMs: busy).wait(pending: 1) != nil)
        // A minute without receipts counts as a second, and is soon forgotten.
        let quiet = pacing(maxWait: .milliseconds(3), gapsMs: busy + [60_000])
        #expect(quiet.wait(pending: 1) == nil)
        #expect(quiet.gap.map { $0 <= 0.21 } == true)
        let burst = pacing(maxWait: .milliseconds(3), gapsMs: busy + [60_000] + Array(repeating: 1, count: 25))
        #expect(burst.wait(pending: 1) != nil)
    }

    @Test func theWaitIsASettingAndABadValueIsNamed() throws {
        let token = ["IAP_API_TOKENS": "a-token-of-16-chars"]
        #expect(
            try IntakeConfiguration(environment: EnvironmentReader(token), apps: nil).commitWait == .milliseconds(3))
        let off = EnvironmentReader(token.merging(["IAP_INTAKE_COMMIT_WAIT_MS": "0"]) { $1 })
        #expect(try IntakeConfiguration(environment: off, apps: nil).commitWait == .zero)
        for bad in ["-1", "51", "soon"] {
            let refused = EnvironmentReader(token.merging(["IAP_INTAKE_COMMIT_WAIT_MS": bad]) { $1 })
            #expect {
                try IntakeConfiguration(environment: refused, apps: nil)
            } throws: { error in
                "\(error)".contains("IAP_INTAKE_COMMIT_WAIT_MS")
            }
        }
    }
}
