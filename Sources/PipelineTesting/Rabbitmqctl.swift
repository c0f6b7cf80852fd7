import Foundation

/// Drives the local broker the way an operator would, for recovery tests.
public enum Rabbitmqctl {
    /// Runs `rabbitmqctl` with `arguments` and waits; throws on a non-zero exit.
    public static func run(_ arguments: String...) async throws {
        let outcome = try await ChildProcess.run(command: "rabbitmqctl", arguments)
        guard outcome.status == 0 else { throw RabbitmqctlError(arguments: arguments, status: outcome.status) }
    }

    public struct RabbitmqctlError: Error, CustomStringConvertible {
        public let arguments: [String]
        public let status: Int32
        public var description: String { "rabbitmqctl \(arguments.joined(separator: " ")) exited \(status)" }
    }
}
