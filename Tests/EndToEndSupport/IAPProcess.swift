import Drills
import Foundation
import PipelineTesting

/// The built `iap` binary, run as a child process, as an operator would.
struct IAPProcess {
    let process: SpawnedProcess

    /// How a process ended, as the tests ask it.
    enum Reason { case exit, uncaughtSignal }

    /// The `iap` executable beside this test bundle (`swift build` puts both in one folder).
    static var executable: URL { built("iap") }

    /// The lab's, `iap-lab`, beside it: the stub stores, the benchmarks, the fault drills.
    static var lab: URL { built("iap-lab") }

    /// The lab's commands: run by ``lab``, every other by ``executable``.
    static let labCommands: Set<String> = ["stub-store", "bench", "chaos"]

    /// The executable that runs `arguments`.
    static func executable(for arguments: [String]) -> URL {
        labCommands.contains(arguments.first ?? "") ? lab : executable
    }

    /// The lab's setting that trusts its stub SNS's certificates: a product command given it
    /// runs as the lab's (`iap-lab iap <command>`), the only executable that reads it.
    static let snsCertificatesVariable = "IAP_LAB_SNS_CERTIFICATES"

    /// The executable and arguments that run `arguments` with `environment`.
    static func command(_ arguments: [String], environment: [String: String]) -> (URL, [String]) {
        let executable = executable(for: arguments)
        guard executable != lab, environment[snsCertificatesVariable] != nil else { return (executable, arguments) }
        return (lab, ["iap"] + arguments)
    }

    private static func built(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/\(name)")
    }

    /// Starts `iap arguments…` with `environment` added to this process's.
    static func start(_ arguments: [String], environment: [String: String], output: URL? = nil) throws -> IAPProcess {
        if let output { _ = FileManager.default.createFile(atPath: output.path, contents: nil) }
        let (executable, arguments) = command(arguments, environment: environment)
        let process = try SpawnedProcess.start(
            executable.path, arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            output: output.map { .file($0.path) } ?? .null)
        return IAPProcess(process: process)
    }

    /// Runs `iap arguments…` to the end; returns its exit status and output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        let (executable, arguments) = command(arguments, environment: environment)
        let outcome = try await ChildProcess.run(executable, arguments, environment: environment)
        return (outcome.status, outcome.output)
    }

    /// SIGTERM, as a supervisor stops a process; returns how it ended and how long it took.
    func terminate(timeout: Duration = .seconds(60)) async -> (
        status: Int32, reason: Reason, took: Duration
    )? {
        let start = ContinuousClock.now
        process.signal(SIGTERM)
        let exited = await eventually(timeout: timeout, every: .milliseconds(50)) { !process.isRunning }
        guard exited else { return nil }
        let took = ContinuousClock.now - start
        switch process.waitUntilExit() {
        case .exited(let status): return (status, .exit, took)
        case .signaled(let signal): return (signal, .uncaughtSignal, took)
        }
    }

    /// SIGKILL: the process gets no chance to ack, nack or close anything.
    func crash() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}
