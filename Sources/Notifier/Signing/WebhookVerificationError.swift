/// Why a webhook delivery failed verification; a receiver answers it with 401 or 400 and
/// does not act on the body.
///
/// A struct over a private enum, so that codes can be added without breaking callers.
public struct WebhookVerificationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the delivery.
    public let code: Code
    /// Detail for people; never includes the secret.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The kind of a ``WebhookVerificationError``; compare with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case missingHeader, invalidTimestamp, timestampTooOld, timestampTooNew, noMatchingSignature
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent.
        public static let missingHeader = Code(.missingHeader)
        /// `webhook-timestamp` is not an integer.
        public static let invalidTimestamp = Code(.invalidTimestamp)
        /// Signed longer ago than the tolerance: possibly a replay.
        public static let timestampTooOld = Code(.timestampTooOld)
        /// Signed further in the future than the tolerance.
        public static let timestampTooNew = Code(.timestampTooNew)
        /// No `v1` signature in the header matches: wrong secret, or the id, timestamp or body
        /// was changed.
        public static let noMatchingSignature = Code(.noMatchingSignature)

        public var description: String { value.rawValue }
    }
}
