/// A setting that is missing or malformed; the process stops at start and prints it.
public struct SettingError: Error, CustomStringConvertible, Sendable {
    /// The environment variable at fault, e.g. `IAP_AMQP_URL`.
    public let variable: String
    public let problem: String

    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    public var description: String { "\(variable): \(problem)" }
}
