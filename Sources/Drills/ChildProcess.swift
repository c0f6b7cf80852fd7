import Foundation

/// A program run to its end, waited for on a thread of libdispatch's, never one of the
/// task pool's.
///
/// On 2 cores the pool has 2 threads. A test that blocked one reading a child's output
/// (Chromium driving the console, `iap dlq`), beside another doing the same, left none
/// to serve the pipeline the child was talking to: the suite hung until CI gave up.
public enum ChildProcess {
    public struct Outcome: Sendable {
        public let status: Int32
        /// Standard output and standard error, interleaved.
        public let output: String
    }

    /// Runs `executable arguments…`, with `environment` added to this process's.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await offloaded {
            let (termination, output) = try SpawnedProcess.run(
                executable.path, arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
            switch termination {
            case .exited(let code), .signaled(let code): return Outcome(status: code, output: output)
            }
        }
    }

    /// Runs a program found on `PATH`.
    public static func run(
        command: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, environment: environment)
    }
}

/// Runs blocking work (a store's blocking call, a child process) on a thread of
/// libdispatch's, not one of the task pool's: on 2 cores the pool has 2 threads, and
/// PostgreSQL round trips that blocked them starved every other test.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
