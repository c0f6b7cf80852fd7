import Database
import DatabaseSQLite
import Drills
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import EndToEndSupport

/// Correctness under load, with every stage its own process: `iap-lab bench stages` starts the
/// stub store, intake, two validators, fulfiller and notifier and posts 5,000 receipts as
/// fast as the intake takes them. This test asserts nothing about time: it reads the
/// database the run left and the webhooks the benchmark's receiver counted. It keeps both
/// cores busy for half a minute, so `scripts/test.sh` runs it in the pass of tests that
/// need the machine to themselves (`IAP_TEST_ALONE=1`), not beside timing-sensitive ones.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneStagesUnderLoadTests {
    struct Report: Decodable {
        struct Books: Decodable {
            var credited: Int
            var webhooksMissing: Int
            var webhooksDuplicated: Int
            var malformedWebhooks: Int
        }
        struct Run: Decodable { var requestBytes: Int }
        struct Flow: Decodable { var seconds: Double }
        var run: Run
        var submit: Flow
        var books: Books
        var processes: [Process]
        struct Process: Decodable {
            var name: String
            var cpuSeconds: Double
        }
        var machineCPUMsPerReceipt: Double
    }

    @Test func fiveThousandReceiptsThroughSeparateProcessesAreEachCreditedAndNotifiedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (parsed, _) = try await StagesBenchRun.run(
            ["--receipts", "5000", "--accounts", "500", "--validators", "2"], as: Report.self, in: directory,
            label: "stages", timeout: .seconds(900))

        // The benchmark's receiver: one webhook per receipt, none twice, every one well formed.
        #expect(parsed.books.webhooksMissing == 0)
        #expect(parsed.books.webhooksDuplicated == 0)
        #expect(parsed.books.malformedWebhooks == 0)
        #expect(
            Set(parsed.processes.map(\.name)).isSuperset(of: [
                "stub-store", "intake", "validator-1", "validator-2", "fulfiller", "notifier", "rabbitmq",
            ]))

        // The books, read here from the database the stages wrote.
        let database = try SQLiteDatabase(path: directory.file("run/iap.sqlite"))
        let counts = try await ReceiptRepository(database).receiptStatusCounts()
        #expect(counts == [.credited: 5000])
        #expect(try await LedgerRepository(database).audit().isEmpty)
        let ledger = LedgerRepository(database)
        var total = 0
        for account in 0..<500 {
            let details = try await ledger.account(id: "player-\(account)", ledgerLimit: 20)
            let coins = details?.balances["coins"] ?? 0
            #expect(coins == 1_000, "player-\(account) holds \(coins) coins, not 10 x 100")
            #expect(details?.ledger.count == 10)
            total += coins
        }
        #expect(total == 500_000)
    }

    /// `--up`: the same load through one `iap up` process in place of the stages, with
    /// receipts of Apple's size (`--pkcs7-receipts`), which the stub store reads at `verifyReceipt`.
    @Test func aThousandReceiptsThroughOneUpProcessAreEachCreditedAndNotifiedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (parsed, _) = try await StagesBenchRun.run(
            ["--receipts", "1000", "--accounts", "100", "--up", "--pkcs7-receipts"], as: Report.self, in: directory,
            label: "up", timeout: .seconds(600))
        #expect(parsed.run.requestBytes > 4_000, "PKCS #7 receipts are kilobytes, not \(parsed.run.requestBytes) bytes")
        #expect(parsed.books.credited == 1000)
        #expect(parsed.books.webhooksMissing == 0 && parsed.books.webhooksDuplicated == 0)
        let names = Set(parsed.processes.map(\.name))
        #expect(names.isSuperset(of: ["stub-store", "up", "rabbitmq"]))
        #expect(names.isDisjoint(with: ["intake", "validator-1", "fulfiller", "notifier"]))
        let database = try SQLiteDatabase(path: directory.file("run/iap.sqlite"))
        #expect(try await ReceiptRepository(database).receiptStatusCounts() == [.credited: 1000])
        #expect(try await LedgerRepository(database).audit().isEmpty)
    }

    /// `--rate`: an open loop, its schedule kept by one thread, each answer taken on the HTTP
    /// client's thread. Every receipt is posted once and credited once, and none is posted
    /// before it is due: 1,000 at 250 a second take at least 3.996 s to post, however fast the
    /// machine (a bound from below, not a timing).
    @Test func anOpenLoopPostsEachReceiptOnceOnItsSchedule() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (parsed, _) = try await StagesBenchRun.run(
            ["--rate", "250", "--seconds", "4", "--accounts", "100"], as: Report.self, in: directory,
            label: "open", timeout: .seconds(600))
        #expect(parsed.books.credited == 1000)
        #expect(parsed.books.webhooksMissing == 0 && parsed.books.webhooksDuplicated == 0)
        #expect(parsed.submit.seconds >= 3.99, "1,000 posts due over 3.996 s took \(parsed.submit.seconds) s")
        // The whole machine holds every process it lists (read a moment apart: a few ticks'
        // leeway); /proc/stat's sampled ticks could count less below saturation (MachineTimes).
        let listed = parsed.processes.map(\.cpuSeconds).reduce(0, +) * 1000 / Double(parsed.books.credited)
        #expect(
            parsed.machineCPUMsPerReceipt >= listed - 0.05,
            "whole machine \(parsed.machineCPUMsPerReceipt) ms a receipt, its processes \(listed)")
        let database = try SQLiteDatabase(path: directory.file("run/iap.sqlite"))
        #expect(try await ReceiptRepository(database).receiptStatusCounts() == [.credited: 1000])
    }
}

/// A load that fails midway ends the benchmark with the failure named and its stages stopped:
/// the intake killed under an open loop (whose pacer holds room for the next post) and under
/// a closed one.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneBenchLoadFailureTests {
    @Test(arguments: [["--rate", "200", "--seconds", "60"], ["--receipts", "200000"]])
    func anIntakeThatDiesEndsTheRunWithItsError(load: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broker = BrokerFixture(label: "load-failure")
        let log = directory.file("bench.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let bench = try SpawnedProcess.start(
            IAPProcess.lab.path, ["bench", "stages", "--work-directory", directory.file("run")] + load,
            environment: ProcessInfo.processInfo.environment.merging(["IAP_AMQP_URL": broker.url]) { $1 },
            output: .file(directory.file("report.txt")), error: .file(log))
        defer { bench.signal(SIGKILL) }

        // When the load is under way, the intake dies.
        var intake: Int32?
        for _ in 0..<1200 where intake == nil {
            intake = Self.child(of: bench.processIdentifier, running: "intake")
            if intake == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let pid = try #require(intake, "no intake started")
        try await Task.sleep(for: .seconds(3))
        kill(pid, SIGKILL)

        // Then the bench exits 1 (not a crash) naming why, and leaves no stage behind.
        let ended = await eventually(timeout: .seconds(120), every: .milliseconds(200)) { !bench.isRunning }
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(ended && bench.termination == .exited(1), "\(String(describing: bench.termination)): \(logged)")
        // Refused, reset or left unanswered, by the moment of the kill: the post is named.
        #expect(logged.contains("cannot post to http://"), "the error names the failed post: \(logged)")
        #expect(Self.child(of: bench.processIdentifier, running: "fulfiller") == nil)
    }

    /// The pid of `parent`'s child whose command line holds `word`, from /proc.
    static func child(of parent: Int32, running word: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                Int32(stat[stat.index(close, offsetBy: 2)...].split(separator: " ")[1]) == parent,
                let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                command.split(separator: "\0").contains(where: { $0 == word })
            else { continue }
            return pid
        }
        return nil
    }
}
