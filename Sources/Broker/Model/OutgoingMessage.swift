/// A message to publish: where it goes, what it carries.
public struct OutgoingMessage: Sendable {
    public var exchange: String
    public var routingKey: String
    public var body: [UInt8]
    public var properties: MessageProperties
    /// A mandatory message that no queue takes comes back as ``PublishError/returned``.
    public var mandatory: Bool

    /// - Parameters:
    ///   - exchange: the exchange name; "" is the default exchange, which routes by queue name.
    ///   - routingKey: the routing key (the queue name on the default exchange).
    public init(
        exchange: String, routingKey: String, body: [UInt8], properties: MessageProperties = .init(),
        mandatory: Bool = true
    ) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
        self.properties = properties
        self.mandatory = mandatory
    }
}
