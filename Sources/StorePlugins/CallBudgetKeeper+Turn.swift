import Foundation
import PipelineCore

/// How a store's client spends a call budget every process shares: it books its turn before
/// each call, and after the store's `429` stops everyone calling for a while.
extension CallBudgetKeeper {
    /// Books a turn in `budget` and sleeps until it comes.
    /// - Parameters:
    ///   - store: The store's name, as its errors say it (`Google Play`).
    ///   - call: The call about to be made, for the error.
    /// - Throws: ``StoreCallError/Code/overBudget`` when the turn is more than `maxWait`
    ///   away (with when to come back), or the budget cannot be read.
    public func waitForTurn(
        in budget: CallBudget, maxWait: Duration, store: String, call: String, now: @escaping @Sendable () -> Date
    ) async throws(StoreCallError) {
        let clock: @Sendable () -> Int64 = { Self.micros(now()) }
        let grant: CallBudget.Grant
        do {
            grant = try await reserve(budget, maxWait: maxWait, now: clock).0
        } catch {
            throw StoreCallError(
                .overBudget, store: store, call: call, message: "the call budget cannot be read: \(error)",
                retryAfter: .seconds(1))
        }
        switch grant {
        case .go(let at):
            let wait = at - clock()
            guard wait > 0 else { return }
            do {
                try await Task.sleep(for: .microseconds(wait))
            } catch {
                throw StoreCallError(
                    .unavailable, store: store, call: call, message: "cancelled while waiting for a turn")
            }
        case .later(let at):
            throw StoreCallError(
                .overBudget, store: store, call: call, message: "\(budget) is booked ahead",
                retryAfter: .microseconds(max(at - clock(), 1)))
        }
    }

    /// After the store's `429`: nobody calls on `budget` for `wait`, in any process sharing it.
    public func pause(_ budget: CallBudget, for wait: Duration, now: Date) async {
        try? await pause(budget, until: Self.micros(now) + wait.microseconds)
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}
