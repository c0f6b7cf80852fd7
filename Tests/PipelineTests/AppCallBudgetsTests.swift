import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Pipeline

/// Each app's calls booked in its own budget (issue 30), in the pipeline's store, metered as
/// every process books them: the default app under the budget's own name (a running
/// deployment keeps its state), another app under `<app>/<name>`; on both backends.
@Suite struct AppCallBudgetsTests {
    let budget = CallBudget(name: "appstore/com.example.game/production/getTransactionInfo", limit: 50, share: 0.9)
    let now: Int64 = 1_800_000_000_000_000

    @Test(arguments: TestBackend.allCases) func twoAppsCallsAreBookedInSeparateBudgets(_ backend: TestBackend)
        async throws
    {
        try await withTestDatabase(backend) { database in
            let shared = MeteredCallBudgets.shared(database)
            let puzzle = AppCallBudgets.of(AppScope(app: "puzzle", isDefault: true), in: shared)
            let racer = AppCallBudgets.of(AppScope(app: "racer", isDefault: false), in: shared)
            let now = self.now

            // When the default app books two calls and the racing game one, at the same moment
            for keeper in [puzzle, puzzle, racer] {
                _ = try await keeper.reserve(budget, maxWait: .seconds(60)) { now }
            }
            // And the racing game is told to back off
            try await racer.pause(budget, until: now + 5_000_000)

            // Then each app's calls are counted in its own row, its pause in its own
            let rows = try await database.snapshot { db in
                try await db.rows("SELECT name, paused_until_us FROM call_budgets ORDER BY name").map {
                    (try $0.get("name", as: String.self), try $0.get("paused_until_us", as: Int64.self))
                }
            }
            #expect(rows.map(\.0) == [budget.name, "racer/" + budget.name])
            #expect(rows.map(\.1) == [0, now + 5_000_000])
            // And the racing game's first call took the first turn of its own budget, not the
            // third of the default app's
            let (grant, calls) = try await racer.reserve(budget, maxWait: .seconds(60)) { now + 5_000_000 }
            #expect(grant == .go(atMicros: now + 5_000_000) && calls == 1)
            // The single-app settings keep the budget's own name
            #expect((AppCallBudgets.of(nil, in: shared) as? MeteredCallBudgets) != nil)
        }
    }
}
