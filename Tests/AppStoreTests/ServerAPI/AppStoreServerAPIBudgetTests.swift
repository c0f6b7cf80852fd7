import AppStore
import Foundation
import PipelineCore
import PipelineTesting
import StubStore
import Synchronization
import Testing

/// The client books every call in its endpoint's budget: calls past Apple's rate wait their
/// turn, turns too far away defer the call, and a `429` holds every caller sharing the budget.
@Suite struct AppStoreServerAPIBudgetTests {
    @Test func aTurnBeyondTheLongestWaitDefersTheCallUnsent() async throws {
        try await ServerAPIFixture.run { fixture in
            fixture.api.register(signedTransaction: jws("32"), transactionID: "32")
            let budgets = LocalCallBudgetKeeper()
            let client = try fixture.client(maxRetryAfter: .seconds(1), budgets: budgets)
            // Given the sandbox-sized budget (4.5 calls a second) booked 5 s ahead by others
            let budget = client.budget(for: .transactionInfo(transactionID: "32"), at: .production)
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            budgets.pause(budget, until: now + 5_000_000)
            // When the client calls
            let error = try #require(
                await expectAPIError { () async throws(AppStoreServerAPIError) in
                    try await client.getTransactionInfo(transactionID: "32")
                })
            // Then nothing was sent and the caller knows when to come back
            #expect(error.code == .overBudget)
            #expect(error.retryAfter.map { $0 > .seconds(4) && $0 <= .seconds(5) } == true)
            #expect(fixture.api.stats.production.requests == 0)
            guard case .deferred = error.outcome else {
                Issue.record("expected a deferral, got \(error.outcome)")
                return
            }
        }
    }

    @Test func a429HoldsEveryClientSharingTheBudgetUntilItsRetryAfter() async throws {
        try await ServerAPIFixture.run({
            $0.rateLimitFirst = 1
            $0.retryAfterSeconds = 2
        }) { fixture in
            fixture.api.register(signedTransaction: jws("33"), transactionID: "33")
            let budgets = PauseWatchingKeeper()
            let first = try fixture.client(budgets: budgets)
            let second = try fixture.client(budgets: budgets)
            // When the first client meets a 429 (come back in 2 s), and the second calls once
            // the pause is known (on a busy machine the 429 may take a while to come back)
            async let firstAnswer = first.getTransactionInfo(transactionID: "33")
            let paused = await eventually { budgets.pausedUntil != nil }
            try #require(paused)
            _ = try await second.getTransactionInfo(transactionID: "33")
            let secondDone = Int64(Date().timeIntervalSince1970 * 1_000_000)
            _ = try await firstAnswer
            // Then the second waited out the first's Retry-After, without a 429 of its own
            #expect(secondDone >= budgets.pausedUntil!)
            #expect(fixture.api.stats.production.count(status: 429) == 1)
            #expect(fixture.api.stats.production.count(status: 200) == 2)
        }
    }
}

/// The local keeper, telling when a `429` paused the budget: the moment the test waits for,
/// and the time no call may go before.
final class PauseWatchingKeeper: CallBudgetKeeper {
    private let keeper = LocalCallBudgetKeeper()
    private let paused = Mutex<Int64?>(nil)

    var pausedUntil: Int64? { paused.withLock { $0 } }

    func reserve(
        _ budget: CallBudget, maxWait: Duration, now: @escaping @Sendable () -> Int64
    ) async throws -> (CallBudget.Grant, calls: Int) {
        keeper.reserve(budget, maxWait: maxWait, now: now)
    }

    func pause(_ budget: CallBudget, until: Int64) async throws {
        keeper.pause(budget, until: until)
        paused.withLock { $0 = max($0 ?? 0, until) }
    }
}
