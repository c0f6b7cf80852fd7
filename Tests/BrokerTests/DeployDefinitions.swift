import Broker
import Foundation

/// `deploy/rabbitmq/definitions.json`, the file a broker loads at boot (docker-compose, a
/// plain VM), read as the topology it declares.
struct DeployDefinitions: Decodable {
    struct Exchange: Decodable {
        var name, vhost, type: String
        var durable, autoDelete, `internal`: Bool
        enum CodingKeys: String, CodingKey {
            case name, vhost, type, durable
            case autoDelete = "auto_delete"
            case `internal`
        }
    }
    struct Queue: Decodable {
        var name, vhost: String
        var durable, autoDelete: Bool
        var arguments: [String: Argument]
        enum CodingKeys: String, CodingKey {
            case name, vhost, durable
            case autoDelete = "auto_delete"
            case arguments
        }
    }
    struct Binding: Decodable {
        var source, vhost, destination, destinationType, routingKey: String
        enum CodingKeys: String, CodingKey {
            case source, vhost, destination
            case destinationType = "destination_type"
            case routingKey = "routing_key"
        }
    }
    /// A queue argument as the broker imports it: JSON numbers are integers, strings strings.
    struct Argument: Decodable {
        var value: AMQPValue
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = .int(number)
            } else {
                value = .string(try container.decode(String.self))
            }
        }
    }

    var exchanges: [Exchange]
    var queues: [Queue]
    var bindings: [Binding]

    static let fileURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/rabbitmq/definitions.json")

    static func load() throws -> DeployDefinitions {
        try JSONDecoder().decode(DeployDefinitions.self, from: Data(contentsOf: fileURL))
    }

    /// The topology the file declares, in the form the processes declare theirs.
    var topology: Topology {
        Topology(
            exchanges: exchanges.map { ExchangeSpec(name: $0.name, type: $0.type) },
            queues: queues.map { QueueSpec(name: $0.name, arguments: $0.arguments.mapValues(\.value)) },
            bindings: bindings.map {
                BindingSpec(queue: $0.destination, exchange: $0.source, routingKey: $0.routingKey)
            })
    }

    /// A copy of the file's exchanges, queues, bindings and policies in `vhost`, which the
    /// import creates; its users and permissions are left out, so that importing the copy
    /// into a shared broker changes no account there.
    static func copy(intoVhost vhost: String) throws -> Data {
        let original = try JSONSerialization.jsonObject(with: Data(contentsOf: fileURL)) as? [String: Any] ?? [:]
        var copy: [String: Any] = ["vhosts": [["name": vhost]]]
        for key in ["exchanges", "queues", "bindings", "policies"] {
            let items = original[key] as? [[String: Any]] ?? []
            copy[key] = items.map { item in item.merging(["vhost": vhost]) { _, new in new } }
        }
        return try JSONSerialization.data(withJSONObject: copy)
    }
}
