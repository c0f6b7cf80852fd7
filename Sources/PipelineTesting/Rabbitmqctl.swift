import Foundation

/// Drives the local broker the way an operator would, for recovery tests.
public enum Rabbitmqctl {
    /// Runs `rabbitmqctl` with `arguments` and waits; throws on a non-zero exit.
    public static func run(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["rabbitmqctl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RabbitmqctlError(arguments: arguments, status: process.terminationStatus)
        }
    }

    public struct RabbitmqctlError: Error, CustomStringConvertible {
        public let arguments: [String]
        public let status: Int32
        public var description: String { "rabbitmqctl \(arguments.joined(separator: " ")) exited \(status)" }
    }
}
