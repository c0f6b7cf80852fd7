import Foundation
import HTTPClient
import PipelineCore

extension AppStoreServerAPIClient {
    /// The call budget of `endpoint` at `environment`.
    public func budget(
        for endpoint: AppStoreServerAPIEndpoint, at environment: AppStoreServerAPIEnvironment
    ) -> CallBudget {
        configuration.rates.budget(for: endpoint.name, at: environment, bundleID: key.bundleID)
    }

    /// Books the call's turn in its budget and sleeps until it comes (not a spin: one timer).
    ///
    /// A turn is a moment every other process stays clear of, so a call that wakes more than
    /// the budget's ``CallBudget/latenessMicros`` after its turn (a very busy machine) books
    /// another rather than go late into someone else's, twice; the third goes late.
    /// - Throws: ``AppStoreServerAPIError/Code/overBudget`` when the turn is more than
    ///   ``Configuration/maxRetryAfter`` away (with when to come back), or the budget cannot
    ///   be read; a cancellation while waiting as the transport's
    ///   `cancelled`.
    func waitForTurn(
        _ endpoint: AppStoreServerAPIEndpoint, at environment: AppStoreServerAPIEnvironment
    ) async throws(AppStoreServerAPIError) {
        let budget = budget(for: endpoint, at: environment)
        let clock: @Sendable () -> Int64 = { [now] in Self.micros(now()) }
        for attempt in 1...3 {
            let grant: CallBudget.Grant
            do {
                grant = try await budgets.reserve(budget, maxWait: configuration.maxRetryAfter, now: clock).0
            } catch {
                throw overBudget(
                    endpoint, at: environment, after: .seconds(1), "the call budget cannot be read: \(error)")
            }
            switch grant {
            case .go(let at):
                let wait = at - clock()
                if wait > 0 {
                    do {
                        try await Task.sleep(for: .microseconds(wait))
                    } catch {
                        throw AppStoreServerAPIExchange.classify(
                            HTTPClientError(
                                .cancelled, message: "cancelled while waiting for a turn in the call budget"),
                            endpoint: endpoint.name, at: environment)
                    }
                }
                let late = clock() - at
                // The third late turn goes all the same: a machine this busy would otherwise defer
                // every call, and should the calls crowd a second, Apple's 429 pauses everyone.
                guard late > budget.latenessMicros, attempt < 3 else { return }
                logger.debug(
                    "App Store Server API: woke too late for the turn, booking another",
                    metadata: ["call": "\(endpoint)", "late_ms": "\(late / 1000)"])
            case .later(let at):
                throw overBudget(
                    endpoint, at: environment, after: .microseconds(max(at - clock(), 1)), "\(budget) is booked ahead")
            }
        }
    }

    private func overBudget(
        _ endpoint: AppStoreServerAPIEndpoint, at environment: AppStoreServerAPIEnvironment, after wait: Duration,
        _ detail: String
    ) -> AppStoreServerAPIError {
        AppStoreServerAPIError(
            .overBudget, endpoint: endpoint.name, environment: environment, isRetryable: true, retryAfter: wait,
            detail: detail)
    }

    /// After a `429`: nobody calls `endpoint` at `environment` for `wait`, in any process
    /// sharing the budget.
    func pause(
        _ endpoint: AppStoreServerAPIEndpoint, at environment: AppStoreServerAPIEnvironment, for wait: Duration
    ) async throws(AppStoreServerAPIError) {
        let until = Self.micros(now()) + wait.microseconds
        do {
            try await budgets.pause(budget(for: endpoint, at: environment), until: until)
        } catch {
            throw AppStoreServerAPIError(
                .overBudget, endpoint: endpoint.name, environment: environment, isRetryable: true,
                retryAfter: wait, detail: "the call budget cannot be paused: \(error)")
        }
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}
