import Database
import DatabasePostgres
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Testing

/// The bounds a database gives its connections: the dead-peer options on both ends of each
/// session, the server's own bounds of a stage's work (`lock_timeout`,
/// `idle_in_transaction_session_timeout`) and the work's, which long work has longer.
@Suite struct PostgresTimeoutsTests {
    static var logger: Logger {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        return logger
    }

    /// A database on the test server with these bounds, closed afterwards.
    static func with<T>(
        _ timeouts: PostgresTimeouts, longWork: Bool = false, _ body: (PostgresPipelineDatabase) async throws -> T
    ) async throws -> T {
        let database = PostgresPipelineDatabase(
            location: PostgresFixture.server, connections: 2, timeouts: timeouts, longWork: longWork,
            logger: logger)
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    @Test func everySocketCarriesTheDeadPeerOptions() async throws {
        let timeouts = PostgresTimeouts(deadPeer: DeadPeer(timeout: .seconds(7)))
        try await Self.with(timeouts) { database in
            let options = try await database.socketOptions()
            // SO_KEEPALIVE on, the first probe after 3 s, then every second, 4 probes, 7,000 ms.
            #expect(options.pooled == [1, 3, 1, 4, 7000])
            #expect(options.own == timeouts.deadPeer.expected)
        }
    }

    static let names = [
        "tcp_user_timeout", "tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_keepalives_count",
        "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
    ]

    /// The server's settings of the session a transaction of `database` runs in, in base units.
    static func settings(_ database: any SQLDatabase) async throws -> [String] {
        try await database.snapshot { session in
            var values: [String] = []
            for name in names {
                values.append(
                    try await session.value("SELECT setting FROM pg_settings WHERE name = ?", [name], as: String.self)
                        ?? "")
            }
            return values
        }
    }

    @Test func theServerBoundsAStagesSessionsAndLongWorkGetsItsOwn() async throws {
        let timeouts = PostgresTimeouts(
            deadPeer: DeadPeer(timeout: .seconds(10)), work: .seconds(20), longWork: .seconds(600))
        let stage = ["10000", "5", "2", "3", "0", "10000", "20000"]
        let long = ["10000", "5", "2", "3", "0", "300000", "600000"]
        let seen = try await Self.with(timeouts) { database in
            // A stage's: no statement_timeout (a commit waiting for the standby must not be
            // cut short), 10 s per lock wait, 20 s idle in a transaction; long work in the same
            // process (the console): 300 s, 600 s; and the stage's sessions keep theirs after
            // it (the long bounds were the transaction's own)
            [
                try await Self.settings(database), try await Self.settings(database.forLongWork()),
                try await Self.settings(database),
            ]
        }
        #expect(seen == [stage, long, stage])
        // A process of long work (a command) starts its sessions with long work's
        let command = try await Self.with(timeouts, longWork: true) { database in try await Self.settings(database) }
        #expect(command == long)
    }

    @Test func aStatementPastAStagesBoundIsGivenUpAndLongWorkRunsIt() async throws {
        // Given a stage's work of 2 s and long work of 20 s
        let timeouts = PostgresTimeouts(work: .seconds(2), longWork: .seconds(20))
        try await Self.with(timeouts) { database in
            // When a stage's statement takes 6 s, its connection is given up at 2 s: transient,
            // well before the statement would end (a loaded machine took 3.01 s to say so)
            let started = ContinuousClock.now
            await #expect {
                try await database.snapshot { try await $0.execute("SELECT pg_sleep(6)") }
            } throws: { error in
                guard case SQLError.unreachable = error else { return false }
                return SQLError.isTransient(error)
            }
            #expect(ContinuousClock.now - started < .seconds(5))
            // And a statement past the stage's bound runs to its end as long work
            _ = try await database.forLongWork().snapshot { try await $0.execute("SELECT pg_sleep(3)") }
        }
    }

    @Test func aLockWaitPastAStagesBoundEndsAndTheHolderCommits() async throws {
        // Given a stage's work of 4 s (lock waits 2 s), and a transaction holding a lock
        try await Self.with(PostgresTimeouts(work: .seconds(4))) { database in
            let waited = try await database.transaction { holder in
                try await holder.execute("SELECT pg_advisory_xact_lock(4242)")
                // When another transaction waits for the same lock
                let started = ContinuousClock.now
                do {
                    try await database.transaction { try await $0.execute("SELECT pg_advisory_xact_lock(4242)") }
                    Issue.record("the second transaction took a lock that was held")
                } catch {
                    // Then the server ends the wait: transient, the database's, not the work's
                    guard case SQLError.unavailable(let message) = error else { throw error }
                    #expect(message.contains("lock timeout"), "\(message)")
                }
                return ContinuousClock.now - started
            }
            #expect(waited >= .milliseconds(1900) && waited < .seconds(4), "\(waited)")
        }
    }
}
