/// Why a publish was not confirmed. Every case but ``nacked`` and ``returned`` means "try
/// again": the broker may or may not have the message, so a retry can duplicate it and
/// consumers must be idempotent.
public enum PublishError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The broker refused the message (for example a full queue with `reject-publish`).
    case nacked
    /// No queue took a mandatory message.
    case returned(code: Int, text: String)
    /// The connection or channel dropped before the broker confirmed.
    case unconfirmed(reason: String)
    /// No connection at the moment; the connection is retrying in the background.
    case notConnected
    /// The connection was closed by its owner.
    case shutdown

    /// Whether publishing the same message again may succeed.
    public var isRetryable: Bool {
        switch self {
        case .nacked, .unconfirmed, .notConnected: return true
        case .returned, .shutdown: return false
        }
    }

    public var description: String {
        switch self {
        case .nacked: return "broker nacked the message"
        case .returned(let code, let text): return "message returned unroutable (\(code) \(text))"
        case .unconfirmed(let reason): return "publish not confirmed: \(reason)"
        case .notConnected: return "not connected to the broker"
        case .shutdown: return "connection shut down"
        }
    }
}

/// A broker failure outside publishing: connecting, declaring, consuming.
public struct BrokerError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        /// The broker cannot be reached or the connection dropped; it is retried.
        case connection
        /// The broker refused an operation (a channel or connection exception).
        case refused
        case notConnected
        case shutdown
        case consumerCancelled
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
