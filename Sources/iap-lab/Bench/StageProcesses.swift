import ArgumentParser
import Drills
import Foundation
import HTTPClient
import Synchronization

/// One `iap` process the benchmark started: a stage, or the stub store.
struct StageProcess: Sendable {
    /// `intake`, `validator-1`, `fulfiller`, ...
    let name: String
    var pid: Int32
    /// Where its standard output and error go.
    let log: String
    /// The URL that answers 2xx once it is ready.
    let readiness: String
    /// What it was started with, to start it again the same way.
    let arguments: [String]
    /// Settings of its own, beside the pipeline's (a second intake's port).
    var environment: [String: String] = [:]
    /// The `cgroup.procs` of its CPU cap's group (`--cpu-limit`), or nil when uncapped.
    var cgroup: String? = nil
    /// The test host it runs in (`iap-lab chaos --cluster`), or nil for this machine's own network.
    var namespace: NetworkNamespace? = nil
}

/// Starts the pipeline's stages as separate `iap` processes, as an operator runs them, and
/// the lab's stub store as an `iap-lab` one, and stops them again. Each writes its log to the
/// work directory.
final class StageProcesses: @unchecked Sendable {
    private(set) var stages: [StageProcess] = []
    private var processes: [SpawnedProcess] = []
    /// Each stage's current process, for readers on other tasks (`iap-lab chaos --soak`'s samples).
    private let current = Mutex<[String: pid_t]>([:])
    private let environment: [String: String]
    private let directory: String
    /// Caps each stage started with `capped` at a share of a core (`iap-lab bench --cpu-limit`).
    let cap: CPUCap?

    init(environment: [String: String], directory: String, cap: CPUCap? = nil) {
        self.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        self.directory = directory
        self.cap = cap
    }

    /// Starts `iap <arguments>`; `readiness` is polled by ``waitUntilReady(client:timeout:)``.
    /// - Parameters:
    ///   - environment: settings of this process's own, beside the pipeline's.
    ///   - capped: in a CPU-capped cgroup of its own, when this runs with a ``cap``.
    ///   - namespace: the network namespace it runs in, restarts too.
    @discardableResult
    func start(
        _ name: String, _ arguments: [String], readiness: String, environment: [String: String] = [:],
        capped: Bool = true, namespace: NetworkNamespace? = nil
    ) throws -> StageProcess {
        let log = "\(directory)/\(name).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let cgroup = try capped ? cap?.join(name) : nil
        return try launch(
            StageProcess(
                name: name, pid: 0, log: log, readiness: readiness, arguments: arguments, environment: environment,
                cgroup: cgroup, namespace: namespace))
    }

    /// Starts `name` again as it was started first, its log continued (it must have exited).
    @discardableResult
    func restart(_ name: String) throws -> StageProcess {
        guard let index = stages.firstIndex(where: { $0.name == name }) else {
            throw ValidationError("no stage named \(name)")
        }
        return try launch(stages[index], replacing: index)
    }

    /// Each stage's process id as last started (it may have exited since); safe from any task.
    var processIDs: [String: pid_t] { current.withLock { $0 } }

    /// SIGKILL to `name`: it gets no chance to ack, commit or close anything. Returns once it exited.
    func kill(_ name: String) async {
        guard let process = zip(stages, processes).first(where: { $0.0.name == name })?.1 else { return }
        process.signal(SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// SIGKILL to every stage of `names` at once (a power cut), then waits until each exited.
    func killAll(_ names: [String]) async {
        let victims = zip(stages, processes).filter { names.contains($0.0.name) }.map(\.1)
        for process in victims { process.signal(SIGKILL) }
        while victims.contains(where: \.isRunning) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// This very lab for its own commands (the stub store), the `iap` beside it for the
    /// stages: the lab and the product it drives always come from the same build.
    static func executable(running arguments: [String]) -> URL {
        // A build while an hour's soak runs replaces the file: the kernel then names it
        // `… (deleted)`, and the new one at the same path is what starts.
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { $0.hasSuffix(" (deleted)") ? String($0.dropLast(" (deleted)".count)) : $0 }
        let lab = URL(fileURLWithPath: running ?? CommandLine.arguments[0])
        guard !Lab.configuration.subcommands.contains(where: { $0.configuration.commandName == arguments.first })
        else { return lab }
        return lab.deletingLastPathComponent().appendingPathComponent("iap")
    }

    private func launch(_ stage: StageProcess, replacing index: Int? = nil) throws -> StageProcess {
        let arguments = stage.arguments
        guard FileManager.default.isWritableFile(atPath: stage.log) else {
            throw ValidationError("cannot write \(stage.log)")
        }
        let executable = Self.executable(running: arguments)
        var (program, programArguments) = (executable, arguments)
        if let cap, let cgroup = stage.cgroup {
            (program, programArguments) = cap.wrap(executable, arguments, joining: cgroup)
        }
        if let namespace = stage.namespace {
            (program, programArguments) = namespace.wrap(program, programArguments)
        }
        // Appended to: a restarted stage's log goes on.
        let process = try SpawnedProcess.start(
            program.path, programArguments, environment: environment.merging(stage.environment) { $1 },
            output: .file(stage.log))
        var started = stage
        started.pid = process.processIdentifier
        current.withLock { $0[stage.name] = process.processIdentifier }
        if let index {
            processes[index] = process
            stages[index] = started
        } else {
            processes.append(process)
            stages.append(started)
        }
        return started
    }

    /// Returns once every stage answers its readiness URL; throws naming the first that
    /// exited or did not get ready in time.
    func waitUntilReady(client: CurlHTTPClient, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        for (stage, process) in zip(stages, processes) {
            while true {
                guard process.isRunning else {
                    throw ValidationError(
                        "\(stage.name) exited with status \(process.terminationStatus); see \(stage.log)")
                }
                let response = try? await client.execute(HTTPClient.HTTPRequest(method: .get, url: stage.readiness))
                if let response, (200..<300).contains(response.status) { break }
                guard ContinuousClock.now < deadline else {
                    throw ValidationError("\(stage.name) not ready after \(timeout); see \(stage.log)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Whether `name`, which exited, died of a signal nobody sent it (a trap, an abort: a
    /// crash) rather than returning an exit status; and how it ended, for the report.
    func ending(of name: String) -> (crashed: Bool, summary: String) {
        guard let process = zip(stages, processes).first(where: { $0.0.name == name })?.1, !process.isRunning else {
            return (false, "running")
        }
        switch process.waitUntilExit() {
        case .signaled(let signal): return (true, "killed by signal \(signal)")
        case .exited(let status): return (false, "exit status \(status)")
        }
    }

    /// The stages that exited while they should be running.
    var exited: [StageProcess] {
        zip(stages, processes).filter { !$0.1.isRunning }.map(\.0)
    }

    /// SIGTERM to every stage; SIGKILL to any still running after `grace`; then their
    /// cgroups are removed. Call it from a task that is not cancelled.
    func stop(grace: Duration = .seconds(15)) async {
        for process in processes where process.isRunning { process.signal(SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while processes.contains(where: \.isRunning), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for process in processes where process.isRunning { process.signal(SIGKILL) }
        if let cap {
            for group in cap.removeAll() {
                FileHandle.standardError.write(Data("bench: could not remove cgroup \(group)\n".utf8))
            }
        }
    }

    /// A free TCP port on loopback, for a stage to bind once this returns.
    static func freePort() -> Int { LoopbackPort.free() }
}
