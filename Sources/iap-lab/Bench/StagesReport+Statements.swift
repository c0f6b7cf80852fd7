import Foundation

extension StagesReport {
    /// What PostgreSQL ran for the run's database over the measured window, from
    /// `pg_stat_statements` (BEGIN and COMMIT included).
    struct Statements: Codable, Sendable {
        var database: String
        var calls: Int
        var callsPerReceipt: Double
        /// Transactions committed, and rolled back (a lost race, retried, or a refusal).
        var commits: Int
        var rollbacks: Int
        /// Time the server spent executing them, all together.
        var executionMs: Double
        /// Distinct statements.
        var distinct: Int
        /// Entries the view dropped during the window to make room (any database's): above
        /// 0, the counts may be short.
        var evicted: Int
        /// The most called first.
        var top: [Statement]
        /// The five that took the most time (lock waits included), the longest first.
        var slowest: [Statement]
    }

    struct Statement: Codable, Sendable {
        var calls: Int
        var callsPerReceipt: Double
        var meanMs: Double
        var totalMs: Double
        var rows: Int
        /// On one line, cut short.
        var query: String
    }

    func printStatements() {
        if let missing = statementsMissing {
            print("  statements: not counted: \(missing)")
        }
        guard let statements else { return }
        let perReceipt = statements.executionMs / Double(max(run.receipts, 1))
        print(
            "  PostgreSQL statements (pg_stat_statements, database \(statements.database)): \(statements.calls) calls, \(col(statements.callsPerReceipt, 0, 1)) per receipt, \(col(statements.executionMs / 1000, 0, 2)) s executing (\(col(perReceipt, 0, 3)) ms per receipt), \(statements.distinct) distinct"
        )
        print(
            "  transactions: \(statements.commits) committed (\(col(Double(statements.commits) / Double(max(run.receipts, 1)), 0, 2)) per receipt), \(statements.rollbacks) rolled back"
        )
        if statements.evicted > 0 {
            print("  (the view dropped \(statements.evicted) entries to make room: the counts may be short)")
        }
        print("      calls  per receipt  mean ms    total s       rows  statement (most called)")
        for statement in statements.top { printLine(statement) }
        print("  the most time (lock waits included):")
        for statement in statements.slowest { printLine(statement) }
    }

    private func printLine(_ statement: Statement) {
        print(
            "  \(col("\(statement.calls)", 9)) \(col(statement.callsPerReceipt, 12, 2)) \(col(statement.meanMs, 8, 3)) \(col(statement.totalMs / 1000, 10, 2)) \(col("\(statement.rows)", 10))  \(statement.query)"
        )
    }
}
