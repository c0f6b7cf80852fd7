import Broker
import Foundation

/// One thing a process needs before it can do its work: the broker, the database.
///
/// ```swift
/// let checks = [ReadinessCheck.broker(connection), ReadinessCheck(name: "database") { try await database.ping() }]
/// ```
public struct ReadinessCheck: Sendable {
    /// Named in `/readyz`'s answer.
    public let name: String
    let probe: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - name: what is checked, as operators call it (`broker`, `database`).
    ///   - probe: returns when the dependency answers; throws an error that says why not.
    public init(name: String, probe: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.probe = probe
    }

    /// Nil when ready, else what is wrong.
    func problem() async -> String? {
        do {
            try await probe()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The broker connection is up (a flag the connection thread keeps; no round trip).
    /// - Parameter name: tells connections apart where a process has several.
    public static func broker(_ connection: AMQPConnection, name: String = "broker") -> ReadinessCheck {
        ReadinessCheck(name: name) {
            guard connection.isConnected else {
                throw ReadinessProblem("not connected to \(connection.configuration.redactedURL)")
            }
        }
    }
}

/// Why a dependency is not ready, in words for an operator.
public struct ReadinessProblem: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
