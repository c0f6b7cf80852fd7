import Drills
import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// `iap-lab bench stages --json` run to its end on the test broker, as the alone tests that read
/// its report run it.
enum StagesBenchRun {
    /// Runs it with `arguments` in `directory`; returns the decoded report and the bench's pid.
    /// Fails the test naming the report and the log when the bench fails, hangs past
    /// `timeout` (its stacks printed first), or prints what is not a `Report`.
    static func run<Report: Decodable>(
        _ arguments: [String], as _: Report.Type, in directory: TemporaryDirectory, label: String,
        timeout: Duration
    ) async throws -> (Report, Int32) {
        let broker = BrokerFixture(label: label)
        // The report on stdout, anything logged on stderr: two files, so that nothing interleaves.
        let report = directory.file("report.json")
        let log = directory.file("bench.log")
        _ = FileManager.default.createFile(atPath: report, contents: nil)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let bench = try SpawnedProcess.start(
            IAPProcess.lab.path,
            ["bench", "stages", "--json", "--work-directory", directory.file("run")] + arguments,
            environment: ProcessInfo.processInfo.environment.merging([
                "IAP_AMQP_URL": broker.url, "IAP_LOG_LEVEL": "warning",
            ]) { $1 },
            output: .file(report), error: .file(log))
        let finished = await eventually(timeout: timeout, every: .milliseconds(200)) { !bench.isRunning }
        if !finished { IAPProcess(process: bench).crash() }
        let json = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(finished && bench.terminationStatus == 0, "iap-lab bench stages failed:\n\(json)\n\(logged)")
        let parsed = try #require(
            try? JSONDecoder().decode(Report.self, from: Data(json.utf8)), "unreadable report:\n\(json)\n\(logged)")
        return (parsed, bench.processIdentifier)
    }
}
