import PipelineCore
import Testing

@Suite struct CallBudgetTests {
    let budget = CallBudget(name: "appstore/com.example.game/production/getTransactionInfo", limit: 50, share: 0.9)

    @Test func turnsAreSpacedSoNoSecondHoldsMoreThanTheShareSpent() {
        var state = CallBudget.State()
        var turns: [Int64] = []
        let start: Int64 = 1_700_000_000_000_000
        // 2,000 callers arriving in bursts from three places, booking as they come
        for index in 0..<2_000 {
            let now = start + Int64(index / 30) * 150_000
            if case .go(let at) = budget.reserve(in: &state, now: now, maxWait: .seconds(3600)) { turns.append(at) }
        }
        #expect(turns.count == 2_000)
        #expect(zip(turns, turns.dropFirst()).allSatisfy { $1 - $0 >= budget.spacingMicros })
        // Every window of one second, wherever it starts, holds at most 45 turns.
        for (index, turn) in turns.enumerated() {
            let inWindow = turns[index...].prefix { $0 < turn + 1_000_000 }.count
            #expect(inWindow <= 45)
        }
    }

    @Test func aTurnFurtherThanTheWaitAllowedIsNotBooked() {
        var state = CallBudget.State(nextSlotMicros: 5_000_000)
        let before = state
        #expect(budget.reserve(in: &state, now: 1_000_000, maxWait: .seconds(2)) == .later(atMicros: 5_000_000))
        #expect(state == before)
        #expect(budget.reserve(in: &state, now: 4_000_000, maxWait: .seconds(2)) == .go(atMicros: 5_000_000))
        #expect(state.nextSlotMicros == 5_000_000 + budget.spacingMicros)
    }

    @Test func aPauseHoldsEveryCallerUntilItEndsAndNeverShrinks() {
        var state = CallBudget.State()
        budget.pause(&state, until: 9_000_000)
        budget.pause(&state, until: 3_000_000)
        #expect(state.pausedUntilMicros == 9_000_000)
        #expect(budget.reserve(in: &state, now: 1_000_000, maxWait: .seconds(5)) == .later(atMicros: 9_000_000))
        #expect(budget.reserve(in: &state, now: 8_000_000, maxWait: .seconds(5)) == .go(atMicros: 9_000_000))
    }

    @Test func anIdleBudgetGrantsAtOnce() {
        var state = CallBudget.State(nextSlotMicros: 100)
        #expect(budget.reserve(in: &state, now: 10_000_000, maxWait: .zero) == .go(atMicros: 10_000_000))
    }

    @Test func theSandboxGetsATenthAndTinyRatesStillMove() {
        let sandbox = CallBudget(name: "s", limit: 5, share: 0.9)
        #expect(sandbox.spacingMicros == 222_223)
        #expect(CallBudget(name: "t", limit: 0.0001).perSecond == 1.0 / 60)
    }

    @Test func theLocalKeeperCountsTheCallsOfASecond() {
        let keeper = LocalCallBudgetKeeper()
        let slow = CallBudget(name: "slow", limit: 4)
        var calls: [Int] = []
        for _ in 0..<6 {
            if case (.go, let count) = keeper.reserve(slow, maxWait: .seconds(10), now: { 10_000_000 }) {
                calls.append(count)
            }
        }
        #expect(calls == [1, 2, 3, 4, 1, 2])
        keeper.pause(slow, until: 60_000_000)
        #expect(keeper.reserve(slow, maxWait: .seconds(10)) { 10_000_000 }.0 == .later(atMicros: 60_000_000))
    }
}
