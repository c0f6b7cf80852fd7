import Database
import DatabaseSQLite
import Foundation
import GooglePlay
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// The statements that run over the whole database (the audit, the pruner of rejected
/// notifications, the operator's searches) read each table once, never once per row of
/// another: SQLite's own plan for each, as `EXPLAIN QUERY PLAN` gives it. Its planner has no
/// statistics here, so an empty file plans as a large one does. A full scan nested in
/// another loop or in a correlated subquery is quadratic: the audit's check of final
/// webhooks was one, 107 s over 30,000 receipts.
@Suite struct QueryPlanTests {
    /// A receipt credited to alice: a row in every table a credit writes.
    static func creditReceipt(in database: any SQLDatabase) async throws {
        try await database.acceptNew([Fixture.receipt("r1", account: "alice")])
        _ = try await SettlementRepository(database).apply(
            [Fixture.valid("r1", account: "alice", [Fixture.purchase("t1")])], catalog: Fixture.catalog,
            now: Fixture.t0)
    }

    @Test func wholeDatabaseStatementsNeverReadATableWholeForEachRowOfAnother() async throws {
        try await withTemporaryDatabase { base in
            // An account with a credited receipt, so that its story reads everything
            try await Self.creditReceipt(in: base)
            let database = CountingDatabase(base)
            let now = Fixture.t0
            _ = try await LedgerRepository(database).audit()
            _ = try await NotificationRepository(database).pruneRejected(before: now)
            _ = try await ReceiptRepository(database).searchReceipts("t-1")
            _ = try await AccountHistoryRepository(database).accounts(matching: "t-1")
            _ = try await ConsumptionRepository(database).pending(since: now, maxAttempts: 3, limit: 100)
            _ = try await GoogleRefundReviewRepository(database).pending(since: now, now: now, limit: 100)
            _ = try await DeadLetterRepository(database).deadLetters(DeadLetterQuery())
            _ = try await DeadLetterRepository(database).deadLetterGroups(DeadLetterQuery())
            _ = try await ActivityRepository(database).activity(.month, now: now)
            _ = try await AccountHistoryRepository(database).story(of: "alice", now: now)
            _ = try await WebhookLogRepository(database).failingReceiver(for: 600, now: now)
            _ = try await ConfirmationRepository(database).overdue(olderThan: 86_400, now: now)
            _ = try await DeadLetterRepository(database).deadLetterIDs(DeadLetterQuery())
            _ = try await OrderRepository(database).bindingConflicts()
            let statements = database.takeStatements()
            #expect(statements.count >= 15)

            for statement in statements {
                let plan = try await QueryPlan.explain(statement.sql, statement.arguments, in: base)
                #expect(plan.nestedScans.isEmpty, "\(plan.nestedScans) in\n\(statement.sql)\n\(plan)")
            }
        }
    }

    @Test func theConsolesChartsReadTheLedgerAndTheReceiptsOnlyInTheirWindow() async throws {
        try await withTemporaryDatabase { base in
            try await Self.creditReceipt(in: base)
            let database = CountingDatabase(base)
            _ = try await ActivityRepository(database).activity(.month, now: Fixture.t0)
            let statements = database.takeStatements()
            #expect(statements.count >= 5)
            for statement in statements {
                let plan = try await QueryPlan.explain(statement.sql, statement.arguments, in: base)
                let scans = plan.lines.filter { ["SCAN ledger_entries", "SCAN receipts"].contains($0.detail) }
                #expect(scans.isEmpty, "\(statement.sql)\n\(plan)")
            }
        }
    }

    /// An operator's search by any id reads the rows it finds through an index: over a million
    /// receipts it read three tables whole, 0.6 s warm and 6 s cold.
    @Test func theOperatorsSearchesReadOnlyTheRowsTheyFind() async throws {
        try await withTemporaryDatabase { base in
            try await Self.creditReceipt(in: base)
            let database = CountingDatabase(base)
            _ = try await ReceiptRepository(database).searchReceipts("t1")
            _ = try await AccountHistoryRepository(database).accounts(matching: "t1")
            let statements = database.takeStatements()
            #expect(statements.count == 2)
            for statement in statements {
                let plan = try await QueryPlan.explain(statement.sql, statement.arguments, in: base)
                let scans = plan.lines.filter { $0.detail.hasPrefix("SCAN ") && !$0.detail.contains("INDEX") }
                #expect(scans.isEmpty, "\(statement.sql)\n\(plan)")
            }
        }
    }

    @Test func theConsolesThroughputReadsOnlyItsWindow() async throws {
        try await withTemporaryDatabase { base in
            let database = CountingDatabase(base)
            _ = try await ReceiptRepository(database).throughput(since: Fixture.t0)
            let statements = database.takeStatements()
            #expect(statements.count == 3)
            for statement in statements {
                let plan = try await QueryPlan.explain(statement.sql, statement.arguments, in: base)
                #expect(!plan.lines.contains { $0.detail.hasPrefix("SCAN ") }, "\(statement.sql)\n\(plan)")
            }
        }
    }

    @Test func aPageOfTheWebhookLogReadsItsRowsByAnIndexNotTheWholeOutbox() async throws {
        try await withTemporaryDatabase { base in
            let database = CountingDatabase(base)
            let log = WebhookLogRepository(database)
            _ = try await log.list(.init())
            _ = try await log.list(.init(accountID: "alice"))
            _ = try await log.list(.init(status: .failed))
            _ = try await log.list(.init(since: Fixture.t0))
            for statement in database.takeStatements() {
                let plan = try await QueryPlan.explain(statement.sql, statement.arguments, in: base)
                let whole = plan.lines.filter { $0.detail.hasPrefix("SCAN ") && !$0.detail.contains("USING INDEX") }
                #expect(whole.isEmpty, "\(statement.sql)\n\(plan)")
            }
        }
    }

    @Test func aScanInACorrelatedSubqueryOrAfterAnotherLoopIsFound() async throws {
        try await withTemporaryDatabase { database in
            let correlated = try await QueryPlan.explain(
                """
                SELECT r.id FROM receipts r WHERE NOT EXISTS (
                    SELECT 1 FROM notification_outbox o WHERE o.type = 'receipt.' || r.status)
                """, in: database)
            #expect(correlated.nestedScans == ["SCAN o"])
            let joined = try await QueryPlan.explain(
                "SELECT r.id FROM receipts r, notification_outbox o WHERE instr(o.body, r.id) > 0", in: database)
            #expect(joined.nestedScans.count == 1)
            let indexed = try await QueryPlan.explain(
                "SELECT r.id FROM receipts r JOIN receipt_transactions t ON t.receipt_id = r.id", in: database)
            #expect(indexed.nestedScans.isEmpty, "\(indexed)")
        }
    }
}

/// SQLite's plan for a statement: its lines (`SCAN`, `SEARCH`, subqueries) as a tree.
struct QueryPlan: CustomStringConvertible {
    struct Line {
        let id: Int
        let parent: Int
        let detail: String
        var isLoop: Bool { detail.hasPrefix("SCAN ") || detail.hasPrefix("SEARCH ") }
    }
    let lines: [Line]

    /// Plans `statement` with its arguments bound as the store bound them, in a write
    /// transaction (the plan of a `DELETE` is not a read; nothing runs but the planning).
    static func explain(_ sql: String, _ arguments: SQLArguments = [], in database: SQLiteDatabase) async throws
        -> QueryPlan
    {
        let lines = try await database.transaction { db in
            try await db.rows("EXPLAIN QUERY PLAN " + sql, arguments).map {
                Line(id: try $0.get("id"), parent: try $0.get("parent"), detail: try $0.get("detail"))
            }
        }
        return QueryPlan(lines: lines)
    }

    /// The full scans that run once per row of something else: under a correlated
    /// subquery, or after another loop of the same level (the inner table of a join).
    var nestedScans: [String] {
        let byID = Dictionary(lines.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func correlated(_ line: Line) -> Bool {
            var parent = byID[line.parent]
            while let current = parent {
                if current.detail.hasPrefix("CORRELATED") { return true }
                parent = byID[current.parent]
            }
            return false
        }
        return lines.filter { line in
            guard line.detail.hasPrefix("SCAN ") else { return false }
            let earlierLoop = lines.contains { $0.parent == line.parent && $0.id < line.id && $0.isLoop }
            return earlierLoop || correlated(line)
        }.map(\.detail)
    }

    var description: String { lines.map { "\($0.id) \($0.parent) \($0.detail)" }.joined(separator: "\n") }
}
