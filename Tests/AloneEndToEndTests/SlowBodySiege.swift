import Drills
import Foundation
import PipelineTesting

@testable import EndToEndSupport

/// An attacker's slow bodies (issue 25) from 127.0.0.1: `Tests/Siege/slow_bodies.py`,
/// in as many processes as it takes (10,000 connections each: one process may not hold
/// more than its file limit, which this machine's tests cannot raise past 20,000). Each
/// connection announces a 1,000-byte receipt and trickles it one byte every 10 s; one the
/// server closes is opened again at its next turn. Bounded: each process stops by itself
/// after `seconds`, or at ``stop()``.
final class SlowBodySiege: @unchecked Sendable {
    struct Counts: Sendable, Decodable {
        /// Connections open right now.
        var open = 0
        /// Connects that succeeded.
        var connected = 0
        /// Connections the server closed (at accept, or later), while the siege went on.
        var closedByServer = 0
        /// Connects that failed (reset before they completed, timed out).
        var failedConnects = 0

        enum CodingKeys: String, CodingKey {
            case open, connected
            case closedByServer = "closed_by_server"
            case failedConnects = "failed_connects"
        }
    }

    static let perProcess = 10_000
    private let processes: [SpawnedProcess]
    private let outputs: [URL]

    /// Starts `connections` slow bodies against `port`, their output in `directory`.
    init(port: Int, connections: Int, seconds: Int, directory: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Siege/slow_bodies.py").path
        var processes: [SpawnedProcess] = []
        var outputs: [URL] = []
        var left = connections
        while left > 0 {
            let share = min(left, Self.perProcess)
            left -= share
            let output = URL(fileURLWithPath: directory).appendingPathComponent("siege-\(outputs.count).log")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let process = try SpawnedProcess.start(
                "/usr/bin/python3",
                [script, "--port", "\(port)", "--connections", "\(share)", "--seconds", "\(seconds)"],
                output: .file(output.path))
            processes.append(process)
            outputs.append(output)
        }
        self.processes = processes
        self.outputs = outputs
    }

    /// The latest counts of every process, added up.
    var current: Counts {
        outputs.reduce(into: Counts()) { total, output in
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                let counts = try? JSONDecoder().decode(Counts.self, from: Data(line.utf8))
            else { return }
            total.open += counts.open
            total.connected += counts.connected
            total.closedByServer += counts.closedByServer
            total.failedConnects += counts.failedConnects
        }
    }

    /// Whether every process is up (none died at start, e.g. without python3).
    var running: Bool { processes.allSatisfy(\.isRunning) }

    /// Stops the siege as an attacker who gives up: every connection closed at once.
    func stop() async {
        for process in processes where process.isRunning { process.signal(SIGTERM) }
        for process in processes {
            _ = await eventually(timeout: .seconds(30)) { !process.isRunning }
        }
    }
}
