import Drills
import Foundation
import PipelineTesting
import Testing

@testable import EndToEndSupport

/// Every `iap` process raises its soft file limit to the hard one at start (issue 25: the
/// intake met its file limit at 20,200 connections), and the intake fits its connection cap
/// under what it got, saying so. A real `iap intake`, started by a shell that lowered its limits.
@Suite struct OpenFileLimitTests {
    @Test(arguments: [(soft: 512, hard: nil), (soft: 512, hard: 2048)] as [(soft: Int, hard: Int?)])
    func iapRaisesItsSoftFileLimitToTheHardOneAndFitsTheCapUnderIt(soft: Int, hard: Int?) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.file("intake.log")
        let lowered = "ulimit -Sn \(soft); " + (hard.map { "ulimit -Hn \($0); " } ?? "")
        let process = try SpawnedProcess.start(
            "/bin/sh", ["-c", lowered + "exec \"$0\" intake 2>\"$1\"", IAPProcess.executable.path, log],
            environment: ProcessInfo.processInfo.environment.merging([
                "IAP_DB_PATH": directory.file("iap.sqlite"), "IAP_API_TOKENS": "file-limit-token-0123456789",
                "IAP_HTTP_PORT": "\(LoopbackPort.free())", "IAP_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/",
                "IAP_LOG_LEVEL": "info",
            ]) { $1 })
        defer {
            process.signal(SIGTERM)
            process.waitUntilExit()
        }

        // Then its soft limit is its hard one
        let limits = await eventually(timeout: .seconds(30)) {
            guard let (now, max) = Self.fileLimits(of: process.processIdentifier) else { return false }
            return now == max && now != soft
        }
        #expect(limits, "limits: \(String(describing: Self.fileLimits(of: process.processIdentifier)))")
        // And under a hard limit of 2,048 the cap of 10,000 connections is lowered, and said
        // before the server starts
        let started = await eventually(timeout: .seconds(30)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Server started")
        }
        #expect(started)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(output.contains("the file limit lowers the connection cap") == (hard != nil), "\(output)")
    }

    /// Soft and hard `Max open files` of `pid`, as `/proc/<pid>/limits` says.
    static func fileLimits(of pid: Int32) -> (Int, Int)? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            return nil
        }
        let fields = line.split(separator: " ").dropFirst(3).compactMap { Int($0) }
        return fields.count >= 2 ? (fields[0], fields[1]) : nil
    }
}
