/// Exchanges, queues and bindings to declare. Declaring is idempotent, so a connection
/// declares its topology on every (re)connect: a broker that lost it gets it back.
public struct Topology: Hashable, Sendable {
    public var exchanges: [ExchangeSpec]
    public var queues: [QueueSpec]
    public var bindings: [BindingSpec]

    public static let empty = Topology(exchanges: [], queues: [], bindings: [])

    public init(exchanges: [ExchangeSpec], queues: [QueueSpec], bindings: [BindingSpec]) {
        self.exchanges = exchanges
        self.queues = queues
        self.bindings = bindings
    }
}

/// A durable exchange.
public struct ExchangeSpec: Hashable, Sendable {
    public var name: String
    /// `direct`, `fanout`, `topic` or `headers`.
    public var type: String

    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }
}

/// A durable queue with its `x-` arguments.
public struct QueueSpec: Hashable, Sendable {
    public var name: String
    public var arguments: [String: AMQPValue]

    public init(name: String, arguments: [String: AMQPValue] = [:]) {
        self.name = name
        self.arguments = arguments
    }
}

public struct BindingSpec: Hashable, Sendable {
    public var queue: String
    public var exchange: String
    public var routingKey: String

    public init(queue: String, exchange: String, routingKey: String) {
        self.queue = queue
        self.exchange = exchange
        self.routingKey = routingKey
    }
}
