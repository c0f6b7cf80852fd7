/// Collects a message's header and body frames after its `basic.deliver` or
/// `basic.return`; AMQP never interleaves content frames within one channel.
struct ContentAssembler {
    enum Kind {
        case delivery(tag: UInt64, redelivered: Bool)
        case returned(code: Int, text: String)
    }

    let kind: Kind
    let exchange: String
    let routingKey: String
    private(set) var properties: MessageProperties?
    private(set) var body: [UInt8] = []
    private var bodySize = 0

    init(kind: Kind, exchange: String, routingKey: String) {
        self.kind = kind
        self.exchange = exchange
        self.routingKey = routingKey
    }

    mutating func header(_ properties: MessageProperties, bodySize: Int) {
        self.properties = properties
        self.bodySize = bodySize
        body.reserveCapacity(bodySize)
    }

    mutating func append(_ fragment: UnsafeRawBufferPointer) {
        body.append(contentsOf: fragment)
    }

    /// The header has arrived and the body is whole.
    var isComplete: Bool { properties != nil && body.count >= bodySize }
}
