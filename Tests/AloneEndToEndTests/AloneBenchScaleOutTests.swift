import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap-lab bench` scaled out on PostgreSQL, small: two intakes (the load spread across them),
/// a validator, two fulfillers and two notifiers, each its own process and, where this
/// machine lets the test make cgroups, each capped at half a core in a group of its own.
/// The books must be right, and PostgreSQL's CPU and the statements it ran reported beside
/// the stages'. Eight processes keep both cores busy: `scripts/test.sh` runs it in the pass
/// of tests that need the machine alone (`IAP_TEST_ALONE=1`).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["IAP_TEST_ALONE"] == "1"))
struct AloneBenchScaleOutTests {
    struct Report: Decodable {
        struct Run: Decodable {
            var replicas: Int
            var database: String
            var cpuLimit: Double?
            var cgroup: String?
        }
        struct Books: Decodable {
            var credited: Int
            var notCredited: Int
            var auditFindings: Int
            var wrongBalances: Int
            var webhooksMissing: Int
            var webhooksDuplicated: Int
            var malformedWebhooks: Int
        }
        struct Process: Decodable {
            var name: String
            var cpuSeconds: Double
            var throttled: Double?
        }
        struct Statements: Decodable {
            var calls: Int
            var callsPerReceipt: Double
            var commits: Int
            var top: [Statement]
            var slowest: [Statement]
        }
        struct Statement: Decodable {
            var calls: Int
            var query: String
        }
        var run: Run
        var books: Books
        var processes: [Process]
        var statements: Statements?
        var statementsMissing: String?
        var verifyRequests: Int?
    }

    static let receipts = 300

    @Test func twoOfEveryStageOnPostgreSQLKeepTheBooksAndReportTheStatements() async throws {
        let capped = Self.cgroupsWritable()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (report, benchPID) = try await PostgresFixture.withDatabase { database in
            try await Self.bench(
                [
                    "--receipts", "\(Self.receipts)", "--accounts", "30", "--clients", "16", "--concurrency", "64",
                    "--replicas", "2", "--database-url", PostgresFixture.url(of: database.location.database),
                ] + (capped ? ["--cpu-limit", "0.5"] : []), in: directory)
        }

        #expect(report.run.replicas == 2 && report.run.database == "postgresql")
        let books = report.books
        #expect(books.credited == Self.receipts && books.notCredited == 0 && books.auditFindings == 0)
        #expect(books.wrongBalances == 0 && books.webhooksMissing == 0 && books.webhooksDuplicated == 0)
        #expect(books.malformedWebhooks == 0)
        // Each intake's relay publishes its own receipts only: none is verified twice.
        #expect(report.verifyRequests == Self.receipts)
        let stages = ["intake", "intake-2", "validator-1", "fulfiller", "fulfiller-2", "notifier", "notifier-2"]
        let names = Set(report.processes.map(\.name))
        #expect(names.isSuperset(of: stages + ["stub-store", "rabbitmq", "postgresql"]), "\(names)")
        // Both intakes took receipts, and PostgreSQL's own work is counted.
        for name in ["intake", "intake-2", "postgresql"] {
            #expect((report.processes.first { $0.name == name }?.cpuSeconds ?? 0) > 0, "\(name) spent no CPU")
        }

        // pg_stat_statements counted the run's statements, COMMIT among them (how many a receipt
        // takes is the store's business, not this test's).
        #expect(report.statementsMissing == nil, "\(report.statementsMissing ?? "")")
        let statements = try #require(report.statements)
        #expect(statements.calls > 0 && statements.commits > 0)
        #expect(abs(statements.callsPerReceipt - Double(statements.calls) / Double(Self.receipts)) < 1e-9)
        #expect(!statements.top.isEmpty && statements.top.count <= 20 && !statements.slowest.isEmpty)
        #expect(statements.top.map(\.calls) == statements.top.map(\.calls).sorted(by: >))
        #expect(statements.top.allSatisfy { !$0.query.isEmpty && !$0.query.contains("\n") })

        guard capped else { return }
        // Every stage was capped (the stub store not), and every group is gone.
        #expect(report.run.cpuLimit == 0.5 && report.run.cgroup != nil)
        for process in report.processes {
            #expect(
                (process.throttled != nil) == stages.contains(process.name),
                "\(process.name): \(process.throttled ?? -1)")
        }
        let left = Self.cgroupRoots().flatMap { root in
            ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
                $0.hasPrefix("iap-bench-\(benchPID)-")
            }
        }
        #expect(left == [])
    }

    /// Runs `iap-lab bench stages --json` with `arguments`; returns its report and pid.
    static func bench(_ arguments: [String], in directory: TemporaryDirectory) async throws -> (Report, Int32) {
        try await StagesBenchRun.run(
            arguments, as: Report.self, in: directory, label: "scaleout", timeout: .seconds(600))
    }

    /// Where cgroup v1's cpu hierarchy or v2's unified one is usually mounted.
    static func cgroupRoots() -> [String] {
        ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup"].filter { root in
            FileManager.default.fileExists(atPath: root + "/cpu.cfs_quota_us")
                || ((try? String(contentsOfFile: root + "/cgroup.controllers", encoding: .utf8)) ?? "")
                    .split(separator: " ").contains { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "cpu" }
        }
    }

    /// Whether a cpu cgroup can be made here (root, or a delegated hierarchy).
    static func cgroupsWritable() -> Bool {
        guard let root = cgroupRoots().first else { return false }
        let probe = "\(root)/iap-test-probe-\(getpid())"
        guard mkdir(probe, 0o755) == 0 else { return false }
        rmdir(probe)
        return true
    }
}
