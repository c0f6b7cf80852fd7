import CRabbitMQ
import Foundation
import Glibc
import Logging
import PipelineCore
import Synchronization

// Losing the connection (reconnect) and closing it (shutdown).
extension ConnectionLoop {
    // MARK: - Losing and closing

    func connectionLost(_ reason: String) {
        guard let lost = state else { return }
        let node = configuration.nodes[rotation.next]
        logger.warning(
            "broker connection lost", metadata: ["amqp.node": "\(node)", "reason": "\(reason)", "epoch": "\(epoch)"])
        state = nil
        // A new connection is blocked again only if the broker says so.
        blocked = false
        blockedSince = nil
        connected.store(false, ordering: .releasing)
        connectedNode.store(-1, ordering: .relaxed)
        socketFD.store(-1, ordering: .relaxed)
        rotation.lost()
        amqp_destroy_connection(lost)
        for (completion, error) in confirms.failAll(.unconfirmed(reason: reason)) { completion(.failure(error)) }
        confirmsStalledSince = nil
        contents.removeAll()
        acks.removeAll()
        acksDueAt = nil
        channelConsumers.removeAll()
        consumerChannels.removeAll()
        for consumer in consumers.values {
            consumer.channel = nil
            consumer.consumerTag = nil
            if consumer.cancelling {
                consumers[consumer.id] = nil
                consumer.sink.finish()
            }
        }
        nextConnectAt = .now + backoff(attempt: 0)
        reconnectAttempt = 1
    }

    func shutdown() {
        // Settlements that consumers sent before the close go out first, so that finished
        // work is not redelivered.
        var leftovers: [ConnectionCommand] = []
        for command in mailbox.drain() {
            if case .settle = command { execute(command) } else { leftovers.append(command) }
        }
        flushAcks()
        for (completion, error) in confirms.failAll(.shutdown) { completion(.failure(error)) }
        for consumer in consumers.values { consumer.sink.finish() }
        consumers.removeAll()
        channelConsumers.removeAll()
        consumerChannels.removeAll()
        if let state {
            _ = amqp_connection_close(state, AMQP_REPLY_SUCCESS)
            amqp_destroy_connection(state)
            self.state = nil
        }
        connected.store(false, ordering: .releasing)
        connectedNode.store(-1, ordering: .relaxed)
        socketFD.store(-1, ordering: .relaxed)
        for command in leftovers + mailbox.drain() {
            switch command {
            case .publish(let messages, _, let completion):
                for index in messages.indices { completion(index, .failure(.shutdown)) }
            case .control(let body): body(nil)
            case .close(let completion): closeCompletions.append(completion)
            case .startConsumer(let consumer): consumer.sink.finish()
            case .settle, .cancelConsumer: break
            }
        }
        logger.debug("broker connection closed")
        for completion in closeCompletions { completion() }
    }

    enum Header {
        static let publishTag = "x-iap-publish-tag"
    }
}
