import Foundation

extension MessageProperties {
    /// Headers minus the broker's per-delivery bookkeeping, for a copy published anew.
    public var republishableHeaders: [String: AMQPValue] {
        headers.filter { $0.key != "x-delivery-count" && $0.key != "x-iap-publish-tag" }
    }
}

extension OutgoingMessage {
    /// A message as a dead letter of ours: the same body, with why it died, where and
    /// after how many attempts in its headers, so that the archive and the operators see the
    /// reason (a broker's own dead letter only says `rejected`).
    public static func deadLetter(
        body: [UInt8], properties: MessageProperties, to exchange: String, from queue: String, reason: String,
        attempts: Int, lastError: String? = nil
    ) -> OutgoingMessage {
        var properties = properties
        properties.headers = properties.republishableHeaders
        properties.headers[MessageHeader.deadReason] = .string(reason)
        properties.headers[MessageHeader.attempts] = .int(Int64(attempts))
        properties.headers[MessageHeader.sourceQueue] = .string(queue)
        properties.headers[MessageHeader.deadAt] = .int(Int64(Date().timeIntervalSince1970))
        if let lastError {
            properties.headers[MessageHeader.lastError] = .string(lastError)
            properties.headers = MessageHeader.appendingAttempt(
                attempts, error: lastError, at: Date(), to: properties.headers)
        }
        return OutgoingMessage(exchange: exchange, routingKey: "", body: body, properties: properties)
    }
}

extension Delivery {
    /// This message as a dead letter of ours (``OutgoingMessage/deadLetter(body:properties:to:from:reason:attempts:lastError:)``).
    public func deadLetter(
        to exchange: String, from queue: String, reason: String, attempts: Int, lastError: String? = nil
    ) -> OutgoingMessage {
        .deadLetter(
            body: body, properties: properties, to: exchange, from: queue, reason: reason, attempts: attempts,
            lastError: lastError)
    }
}
