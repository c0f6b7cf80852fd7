import AppStore
import Foundation
import PipelineCore
import StubStore
import Testing

/// The budget's timing, in the pass of its own (`Alone`): 25 calls past the rate take their
/// turns and no second holds more than the limit. Beside hundreds of other tests on 2 cores
/// the sleeps overshoot by far more than a turn, which measures the machine, not the budget.
@Suite struct AloneServerAPIBudgetTimingTests {
    @Test func callsPastTheRateWaitTheirTurnAndNoSecondHoldsMore() async throws {
        try await ServerAPIFixture.run({ $0.enforcesRateLimits = true }) { fixture in
            fixture.api.register(signedTransaction: jws("31"), transactionID: "31")
            // Given a limit of 10 calls a second, 90 % of it spent (the stub enforces Apple's 50)
            let rates = AppStoreServerAPIRates(limits: ["getTransactionInfo": 10], share: 0.9)
            let client = try fixture.client(rates: rates)
            let start = ContinuousClock.now
            // When 25 calls start at once
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<25 {
                    group.addTask { _ = try await client.getTransactionInfo(transactionID: "31") }
                }
                try await group.waitForAll()
            }
            // Then they took about 24 / 9 s, never more than the limit in any second, even on a
            // busy machine whose late wake-ups are let through
            #expect(ContinuousClock.now - start >= .milliseconds(2_600))
            #expect(fixture.api.stats.busiestSecond("production/getTransactionInfo") <= 10)
            #expect(fixture.api.stats.production.count(status: 200) == 25)
        }
    }
}
