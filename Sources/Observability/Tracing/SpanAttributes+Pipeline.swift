import Tracing

/// OpenTelemetry's semantic conventions as the stages use them (messaging: RabbitMQ;
/// databases; HTTP clients), and the pipeline's own `iap.*` attributes. Only called on a
/// recording span: the stages build no attribute when tracing is off.
extension SpanAttributes {
    /// A message published to or processed from RabbitMQ.
    /// - Parameters:
    ///   - operation: `publish` (send), `process` or `receive`.
    ///   - destination: the exchange published to, or the queue consumed from.
    public mutating func messaging(
        operation: String, destination: String, routingKey: String? = nil, messageID: String? = nil,
        bodySize: Int? = nil
    ) {
        self["messaging.system"] = "rabbitmq"
        self["messaging.operation.name"] = operation
        self["messaging.operation.type"] = operation == "publish" ? "send" : operation
        self["messaging.destination.name"] = destination
        if let routingKey { self["messaging.rabbitmq.destination.routing_key"] = routingKey }
        if let messageID { self["messaging.message.id"] = messageID }
        if let bodySize { self["messaging.message.body.size"] = bodySize }
    }

    /// A statement (or one batch of them) on the pipeline's database.
    /// - Parameters:
    ///   - system: `sqlite` or `postgresql` (`db.system.name`).
    public mutating func database(system: String, operation: String, collection: String, batchSize: Int? = nil) {
        self["db.system.name"] = system
        self["db.operation.name"] = operation
        self["db.collection.name"] = collection
        self["db.query.summary"] = "\(operation) \(collection)"
        if let batchSize, batchSize > 1 { self["db.operation.batch.size"] = batchSize }
    }
}

/// Span names, so that the docs and the tests name the same ones.
public enum SpanName {
    /// The backend's request at the intake is Hummingbird's server span, named by its route.
    public static let intakeCommit = "INSERT receipts"
    public static func publish(_ exchange: String) -> String { "publish \(exchange)" }
    public static func process(_ queue: String) -> String { "process \(queue)" }
    public static let verify = "verify"
    public static let settle = "settle"
    public static let webhook = "POST"
}
