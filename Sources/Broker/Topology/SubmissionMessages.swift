import Foundation
import PipelineCore

/// How submissions travel on the validate queue: one message for a receipt alone, one
/// message for several committed together.
///
/// A message costs the broker the same whatever it carries (its routing, its quorum
/// queue's log entry, the confirm, the delivery, the ack), so the relay puts the receipts
/// of one commit into one message, at most ``perMessage`` of them: under load a commit holds
/// many and the broker's work per receipt falls with them; a quiet intake commits one at a
/// time and sends what it always sent (BENCHMARKS.md, issue 29). Several are a JSON array of
/// what one is, so a message stays readable in the broker's UI and in `iap dlq show`.
///
/// What one receipt's attempt sends on (a verdict, a copy to a delay tier, a dead letter)
/// is that receipt's alone: a batch is only ever a first attempt, and retries, waits and
/// the dead-letter queue hold one receipt a message, as operators review them.
public enum SubmissionMessages {
    /// The most receipts one message carries: enough that the broker's share per receipt is
    /// small, few enough that a batch redelivered after a crash asks the store again for little.
    public static let perMessage = 32

    /// On a message of several: how many it carries.
    public static let countHeader = "x-iap-receipts"
    /// On a message of several, tracing on: each receipt's publish span (receipt id to W3C
    /// `traceparent`), as a message of one carries it in ``MessageHeader/traceparent``.
    public static let traceparentsHeader = "x-iap-traceparents"

    /// The messages that carry `submissions` to the validate queue, in order, each with the
    /// ids it carries.
    public static func messages(
        _ submissions: [Submission], topology: PipelineTopology, type: String, perMessage: Int = perMessage
    ) -> [(ids: [String], message: OutgoingMessage)] {
        let encoder = WireCoding.encoder()
        var messages: [(ids: [String], message: OutgoingMessage)] = []
        var start = submissions.startIndex
        while start < submissions.endIndex {
            let end = min(start + max(1, perMessage), submissions.endIndex)
            let group = submissions[start..<end]
            start = end
            let body: Data
            var properties = MessageProperties(type: type, timestamp: Date())
            if group.count == 1, let submission = group.first {
                guard let encoded = try? encoder.encode(submission) else { continue }
                body = encoded
                properties.messageID = submission.id
                if let traceparent = submission.traceparent {
                    properties.headers[MessageHeader.traceparent] = .string(traceparent)
                }
            } else {
                guard let encoded = try? encoder.encode(Array(group)) else { continue }
                body = encoded
                properties.headers[countHeader] = .int(Int64(group.count))
                let traced = group.compactMap { submission in
                    submission.traceparent.map { (submission.id, AMQPValue.string($0)) }
                }
                if !traced.isEmpty {
                    properties.headers[traceparentsHeader] = .table(Dictionary(traced) { first, _ in first })
                }
            }
            let message = OutgoingMessage(
                exchange: topology.workExchange, routingKey: PipelineTopology.validateKey, body: Array(body),
                properties: properties)
            messages.append((group.map(\.id), message))
        }
        return messages
    }

    /// One receipt of a message on the validate queue, as if it had come alone: its body and
    /// properties are what a message of that one receipt would have had.
    public struct Part: Sendable {
        public var submission: Submission
        public var body: [UInt8]
        public var properties: MessageProperties
    }

    /// The receipts `body` carries, each as a ``Part`` with `properties` for its own (the
    /// message id its receipt's, its own trace context); nil when the body is neither one
    /// submission nor a non-empty array of them.
    public static func parts(body: [UInt8], properties: MessageProperties) -> [Part]? {
        let decoder = WireCoding.decoder()
        guard isArray(body) else {
            guard let submission = try? decoder.decode(Submission.self, from: Data(body)) else { return nil }
            return [Part(submission: submission, body: body, properties: properties)]
        }
        guard let submissions = try? decoder.decode([Submission].self, from: Data(body)), !submissions.isEmpty else {
            return nil
        }
        let traceparents = properties.headers[traceparentsHeader]?.tableValue ?? [:]
        let encoder = WireCoding.encoder()
        var shared = properties
        shared.headers[countHeader] = nil
        shared.headers[traceparentsHeader] = nil
        shared.headers[MessageHeader.traceparent] = nil
        return submissions.map { submission in
            var own = shared
            own.messageID = submission.id
            if let traceparent = traceparents[submission.id] { own.headers[MessageHeader.traceparent] = traceparent }
            let body = (try? encoder.encode(submission)).map(Array.init) ?? []
            return Part(submission: submission, body: body, properties: own)
        }
    }

    /// Whether `body` is a JSON array: the first byte that is not JSON's whitespace is `[`.
    static func isArray(_ body: [UInt8]) -> Bool {
        body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "[")
    }
}

extension Delivery {
    /// The receipts this validate-queue message carries (``SubmissionMessages``).
    public var submissionParts: [SubmissionMessages.Part]? {
        SubmissionMessages.parts(body: body, properties: properties)
    }
}
