import Database
import DatabasePostgres
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import DatabaseTesting

/// Stages replicated on one PostgreSQL database: each handle below is what one process
/// holds (its own connections), and they work on the same rows at the same moment.
@Suite struct PostgresReplicaTests {
    let t0 = Fixture.t0

    /// Runs `body` with `count` handles on one fresh, migrated database.
    func withReplicas(_ count: Int, _ body: ([PostgresPipelineDatabase]) async throws -> Void) async throws {
        try await PostgresFixture.withDatabase(connections: 4) { first in
            try await first.migrate()
            let location = first.location
            var logger = Logger(label: "replica")
            logger.logLevel = .error
            let others = (1..<count).map { _ in PostgresPipelineDatabase(location: location, logger: logger) }
            do {
                try await body([first] + others)
            } catch {
                for other in others { await other.close() }
                throw error
            }
            for other in others { await other.close() }
        }
    }

    @Test func oneBatchOfVerdictsDeliveredToTwoFulfillersAtOnceCreditsEachPurchaseOnce() async throws {
        try await withReplicas(2) { replicas in
            // Given 120 receipts of 12 accounts
            let receipts = (0..<120).map { Fixture.receipt("r\($0)", account: "a\($0 % 12)") }
            try await replicas[0].acceptNew(receipts)
            let verdicts = receipts.map {
                Fixture.valid($0.id, account: $0.accountID, [Fixture.purchase("t-\($0.id)")])
            }

            // When two fulfillers apply the same verdicts at the same moment, in opposite orders
            async let one = SettlementRepository(replicas[0]).apply(verdicts, catalog: Fixture.catalog, now: t0)
            async let two = SettlementRepository(replicas[1]).apply(
                verdicts.reversed(), catalog: Fixture.catalog, now: t0)
            let results = try await one + two

            // Then each receipt was applied once and found final the other time
            let applied = results.filter { if case .applied = $0 { true } else { false } }
            let alreadyFinal = results.filter { if case .alreadyFinal = $0 { true } else { false } }
            #expect(applied.count == 120)
            #expect(alreadyFinal.count == 120)
            // And every account holds exactly its ten purchases, with one webhook per receipt
            for index in 0..<12 {
                let account = try #require(
                    try await LedgerRepository(replicas[1]).account(id: "a\(index)", ledgerLimit: 100))
                #expect(account.balances == ["coins": 1_000])
                #expect(account.ledger.count == 10)
            }
            #expect(try await replicas[0].allWebhooks().count == 120)
            #expect(try await LedgerRepository(replicas[0]).audit() == [])
        }
    }

    @Test func creditsToOneAccountFromFourFulfillersAddUp() async throws {
        try await withReplicas(4) { replicas in
            // Given 200 receipts of one account, split among four fulfillers
            let receipts = (0..<200).map { Fixture.receipt("r\($0)", account: "whale") }
            try await replicas[0].acceptNew(receipts)
            let verdicts = receipts.map { Fixture.valid($0.id, account: "whale", [Fixture.purchase("t-\($0.id)")]) }

            // When each applies its share in batches of 10 at the same moment
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, replica) in replicas.enumerated() {
                    let share = verdicts.enumerated().filter { $0.offset % 4 == index }.map(\.element)
                    group.addTask {
                        for batch in stride(from: 0, to: share.count, by: 10) {
                            _ = try await SettlementRepository(replica).apply(
                                Array(share[batch..<min(batch + 10, share.count)]), catalog: Fixture.catalog,
                                now: self.t0)
                        }
                    }
                }
                try await group.waitForAll()
            }

            // Then the balance is the sum of every credit, and the books balance
            let account = try #require(try await LedgerRepository(replicas[0]).account(id: "whale", ledgerLimit: 500))
            #expect(account.balances == ["coins": 20_000])
            #expect(account.ledger.count == 200)
            #expect(try await LedgerRepository(replicas[0]).audit() == [])
        }
    }

    @Test func notifiersClaimingAtOnceNeverTakeTheSameWebhook() async throws {
        try await withReplicas(3) { replicas in
            // Given 300 credited receipts, so 300 webhooks due
            let receipts = (0..<300).map { Fixture.receipt("r\($0)", account: "a\($0 % 30)") }
            try await replicas[0].acceptNew(receipts)
            _ = try await SettlementRepository(replicas[0]).apply(
                receipts.map { Fixture.valid($0.id, account: $0.accountID, [Fixture.purchase("t-\($0.id)")]) },
                catalog: Fixture.catalog, now: t0)

            // When three notifiers claim batches of 25 at the same moment until none is due
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for replica in replicas {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let due = try await OutboxRepository(replica).claimDueWebhooks(
                                now: self.t0, limit: 25, leaseUntil: self.t0.addingTimeInterval(60))
                            if due.isEmpty { return mine }
                            mine += due.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }

            // Then every webhook went to exactly one of them
            let all = claimed.flatMap { $0 }
            #expect(all.count == 300)
            #expect(Set(all).count == 300)
        }
    }

    @Test func oneSchedulerLeadsAndAnotherTakesOverWhenItGoes() async throws {
        try await withReplicas(2) { replicas in
            let first = replicas[0].leadership(of: "test-job")
            let second = replicas[1].leadership(of: "test-job")
            #expect(await first.isLeader())
            #expect(await !second.isLeader())
            #expect(await first.isLeader())
            // When the leader's connection goes (as when its process dies)
            await first.resign()
            #expect(await second.isLeader())
            #expect(await !first.isLeader())
        }
    }

    @Test func aLostConnectionFailsAsTransientAndTheNextTransactionConnectsAgain() async throws {
        try await withReplicas(1) { replicas in
            // One lane, so that the connection the server drops is the one used next
            var logger = Logger(label: "replica")
            logger.logLevel = .error
            let store = PostgresPipelineDatabase(location: replicas[0].location, connections: 1, logger: logger)
            do {
                try await lostConnection(store, admin: replicas[0])
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    func lostConnection(_ store: PostgresPipelineDatabase, admin: PostgresPipelineDatabase) async throws {
        try await store.acceptNew([Fixture.receipt("r1", account: "a1"), Fixture.receipt("r2", account: "a1")])
        _ = try await SettlementRepository(store).apply(
            [Fixture.valid("r1", account: "a1", [Fixture.purchase("t1")])], catalog: Fixture.catalog, now: t0)

        // When the server drops every connection of the store's process (a failover, a restart)
        try await admin.administer(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)

        // Then a transaction on a dropped connection fails as transient (the fulfiller
        // retries it with backoff, its messages unacked), and the lanes connect again
        var failures = 0
        var results: [VerdictResult] = []
        for _ in 0..<10 where results.isEmpty {
            do {
                results = try await SettlementRepository(store).apply(
                    [Fixture.valid("r2", account: "a1", [Fixture.purchase("t2")])], catalog: Fixture.catalog, now: t0)
            } catch {
                #expect(SQLError.isTransient(error), "\(error)")
                failures += 1
            }
        }
        #expect(results == [.applied(receiptID: "r2", status: .credited, reason: nil)])
        #expect(failures <= 4)
        #expect(try await LedgerRepository(store).account(id: "a1")?.balances == ["coins": 200])
    }
}
