import Foundation
import PipelineCore

extension AMQPConnection {
    /// Publishes submissions to the validate queue with confirms, each with its receipt's
    /// id as the message id, packed (``MessagePack``). What the relay and the subscription
    /// scheduler both do before they mark their rows published.
    /// - Parameter type: the message's `type` property (`submission`, `subscription_check`).
    /// - Returns: the ids the broker confirmed, and the others with why.
    public func publishSubmissions(
        _ submissions: [Submission], topology: PipelineTopology, type: String
    ) async -> (confirmed: [String], failed: [(id: String, error: PublishError)]) {
        await withCheckedContinuation { continuation in
            publishSubmissions(submissions, topology: topology, type: type) { continuation.resume(returning: ($0, $1)) }
        }
    }

    /// The same, calling `completion` on the connection's thread once every one is settled
    /// (``publish(_:completion:)``).
    public func publishSubmissions(
        _ submissions: [Submission], topology: PipelineTopology, type: String,
        completion: @escaping @Sendable (_ confirmed: [String], _ failed: [(id: String, error: PublishError)]) -> Void
    ) {
        let messages = submissions.map { submission -> OutgoingMessage in
            var properties = MessageProperties(messageID: submission.id, type: type, timestamp: Date())
            if let traceparent = submission.traceparent {
                properties.headers[MessageHeader.traceparent] = .string(traceparent)
            }
            return OutgoingMessage(
                exchange: topology.workExchange, routingKey: PipelineTopology.validateKey, body: submission.wireJSON,
                properties: properties)
        }
        let packs = MessagePack.pack(messages)
        let ids = packs.map(\.ids)
        publish(packs.map(\.message)) { results in
            var confirmed: [String] = []
            var failed: [(id: String, error: PublishError)] = []
            for (ids, result) in zip(ids, results) {
                switch result {
                case .success: confirmed += ids
                case .failure(let error): failed += ids.map { ($0, error) }
                }
            }
            completion(confirmed, failed)
        }
    }
}
