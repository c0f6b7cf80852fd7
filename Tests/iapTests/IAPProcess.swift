import Foundation
import PipelineTesting

/// The built `iap` binary, run as a child process, as an operator would.
struct IAPProcess {
    let process: Process

    /// The `iap` executable beside this test bundle (`swift build` puts both in one folder).
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("iap")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/iap")
    }

    /// Starts `iap arguments…` with `environment` added to this process's.
    static func start(_ arguments: [String], environment: [String: String], output: URL? = nil) throws -> IAPProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let output {
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return IAPProcess(process: process)
    }

    /// Runs `iap arguments…` to the end; returns its exit status and output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        let outcome = try await ChildProcess.run(executable, arguments, environment: environment)
        return (outcome.status, outcome.output)
    }

    /// SIGTERM, as a supervisor stops a process; returns how it ended and how long it took.
    func terminate(timeout: Duration = .seconds(60)) async -> (
        status: Int32, reason: Process.TerminationReason, took: Duration
    )? {
        let start = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        let exited = await eventually(timeout: timeout, every: .milliseconds(50)) { !process.isRunning }
        guard exited else { return nil }
        return (process.terminationStatus, process.terminationReason, ContinuousClock.now - start)
    }

    /// SIGKILL: the process gets no chance to ack, nack or close anything.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
