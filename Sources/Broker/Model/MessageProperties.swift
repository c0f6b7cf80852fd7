import Foundation

/// The AMQP basic properties we use, as plain Swift values.
public struct MessageProperties: Hashable, Sendable {
    public var contentType: String?
    /// Persistent messages (the default) survive a broker restart.
    public var persistent: Bool
    public var messageID: String?
    public var correlationID: String?
    public var type: String?
    public var timestamp: Date?
    public var headers: [String: AMQPValue]

    public init(
        contentType: String? = "application/json", persistent: Bool = true, messageID: String? = nil,
        correlationID: String? = nil, type: String? = nil, timestamp: Date? = nil,
        headers: [String: AMQPValue] = [:]
    ) {
        self.contentType = contentType
        self.persistent = persistent
        self.messageID = messageID
        self.correlationID = correlationID
        self.type = type
        self.timestamp = timestamp
        self.headers = headers
    }
}
