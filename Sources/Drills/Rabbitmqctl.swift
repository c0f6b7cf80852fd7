import Foundation

/// Drives the local broker the way an operator would, for recovery tests and `iap-lab chaos`.
public enum Rabbitmqctl {
    /// Runs `rabbitmqctl` with `arguments` and waits; throws on a non-zero exit.
    public static func run(_ arguments: String...) async throws {
        _ = try await output(arguments)
    }

    /// Runs `rabbitmqctl` with `arguments`; its output, or a throw on a non-zero exit.
    public static func output(_ arguments: [String]) async throws -> String {
        let outcome = try await ChildProcess.run(command: "rabbitmqctl", arguments)
        guard outcome.status == 0 else {
            throw RabbitmqctlError(arguments: arguments, status: outcome.status, output: outcome.output)
        }
        return outcome.output
    }

    public struct RabbitmqctlError: Error, CustomStringConvertible {
        public let arguments: [String]
        public let status: Int32
        public var output = ""
        public var description: String {
            "rabbitmqctl \(arguments.joined(separator: " ")) exited \(status)"
                + (output.isEmpty ? "" : ": \(output.suffix(500))")
        }
    }
}
