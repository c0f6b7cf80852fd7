import Database
import DatabasePostgres
import Foundation
import Logging
import Repositories
import SettlementWriter

/// The statements PostgreSQL ran for one benchmark's database, as `pg_stat_statements`
/// counts them: reset where the measured window starts, read where it ends. The view lives
/// where `CREATE EXTENSION` put it (`scripts/postgres.sh`: the database `postgres`) but counts
/// every database's statements, so only the benchmark's (`dbid`) are reset and read.
final class StatementCounter: Sendable {
    /// The benchmark's database.
    let database: String
    private let server: PostgresPipelineDatabase
    /// `pg_stat_statements_info.dealloc` at the reset.
    private let evictedBefore: Int

    /// Resets the counts of `url`'s database; throws why they cannot be counted.
    init(url: String, logger: Logger) async throws {
        let location = try PostgresLocation(url: url, variable: "--database-url")
        database = location.database
        var found: PostgresPipelineDatabase?
        for name in ["postgres"] + (location.database == "postgres" ? [] : [location.database]) {
            let candidate = PostgresPipelineDatabase(location: location.database(name), connections: 1, logger: logger)
            let installed = try? await candidate.snapshot { session in
                try await session.value("SELECT to_regclass('pg_stat_statements') IS NOT NULL AS found", as: Bool.self)
            }
            if installed == true {
                found = candidate
                break
            }
            await candidate.close()
        }
        guard let found else {
            throw StatementCounterError(
                "pg_stat_statements is not installed in database postgres nor \(location.database) (scripts/postgres.sh installs it)"
            )
        }
        server = found
        do {
            evictedBefore = try await found.transaction { [database] session in
                try await session.execute(
                    "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = ?), 0)", [database]
                )
                return try await session.value("SELECT dealloc FROM pg_stat_statements_info", as: Int.self) ?? 0
            }
        } catch {
            await found.close()
            throw StatementCounterError("pg_stat_statements cannot be reset: \(error)")
        }
    }

    /// The counts since the reset: the `top` statements by calls and the five that took the
    /// most time, their text cut short.
    func read(receipts: Int, top: Int = 20) async throws -> StagesReport.Statements {
        let (rows, evicted) = try await server.snapshot { [database] session in
            let rows = try await session.rows(
                """
                SELECT calls, total_exec_time AS ms, rows, query FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ?) ORDER BY calls DESC
                """, [database]
            ).map { row in
                Counted(
                    calls: try row.get("calls"), ms: try row.get("ms"), rows: try row.get("rows"),
                    query: try row.get("query"))
            }
            return (rows, try await session.value("SELECT dealloc FROM pg_stat_statements_info", as: Int.self) ?? 0)
        }
        let calls = rows.map(\.calls).reduce(0, +)
        let receipts = Double(max(receipts, 1))
        let shown = { (row: Counted) in
            StagesReport.Statement(
                calls: row.calls, callsPerReceipt: Double(row.calls) / receipts,
                meanMs: row.calls > 0 ? row.ms / Double(row.calls) : 0, totalMs: row.ms, rows: row.rows,
                query: Self.shortened(row.query))
        }
        // Transactions end in COMMIT or ROLLBACK (a retried one in both); not ROLLBACK TO SAVEPOINT.
        let ended = { (word: String) in
            rows.filter { $0.query.uppercased().hasPrefix(word) && !$0.query.uppercased().contains("SAVEPOINT") }
                .map(\.calls).reduce(0, +)
        }
        return StagesReport.Statements(
            database: database, calls: calls, callsPerReceipt: Double(calls) / receipts, commits: ended("COMMIT"),
            rollbacks: ended("ROLLBACK"),
            executionMs: rows.map(\.ms).reduce(0, +), distinct: rows.count, evicted: evicted - evictedBefore,
            top: rows.prefix(top).map(shown), slowest: rows.sorted { $0.ms > $1.ms }.prefix(5).map(shown))
    }

    /// One row of the view: a statement's calls, time spent in ms, rows and text.
    private struct Counted: Sendable {
        var calls: Int
        var ms: Double
        var rows: Int
        var query: String
    }

    func close() async { await server.close() }

    /// One line, at most 100 characters.
    private static func shortened(_ query: String) -> String {
        let line = query.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return line.count > 100 ? line.prefix(99) + "…" : line
    }
}

struct StatementCounterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
