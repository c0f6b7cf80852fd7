import Crypto
import Foundation

/// Signs webhook deliveries the Standard Webhooks way, and checks such signatures.
///
/// A delivery carries three headers besides `content-type: application/json`:
/// - `webhook-id`: the event's stable id, the same on every retry, so the receiver can dedupe;
/// - `webhook-timestamp`: when this attempt was signed, in unix seconds;
/// - `webhook-signature`: `v1,` and the base64 of HMAC-SHA256(key, `"{id}.{timestamp}.{body}"`).
///
/// ```swift
/// let signer = WebhookSigner(secret: try WebhookSecret(env["IAP_WEBHOOK_SECRET"]!))
/// let headers = signer.headers(id: "evt_1", timestamp: Date(), body: Array(body.utf8))
/// ```
///
/// A receiver checks a delivery with ``verify(id:timestamp:signature:body:now:tolerance:)``,
/// or with any Standard Webhooks library given the same `whsec_` secret.
///
/// Spec: <https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md>
public struct WebhookSigner: Sendable {
    /// The signature version this signer writes and the only one it accepts.
    public static let version = "v1"
    /// How far a delivery's timestamp may be from the receiver's clock, either way, before it
    /// is refused as a possible replay: five minutes, as the spec suggests.
    public static let defaultTolerance: Duration = .seconds(300)

    /// The key.
    public let secret: WebhookSecret
    /// Further keys, during a rotation: each delivery carries a signature by every key, and
    /// ``verify(id:timestamp:signature:body:now:tolerance:)`` accepts any of them.
    public let additionalSecrets: [WebhookSecret]

    /// - Parameters:
    ///   - secret: The shared secret.
    ///   - additionalSecrets: The other secret of a rotation (old or new), if one is under way.
    public init(secret: WebhookSecret, additionalSecrets: [WebhookSecret] = []) {
        self.secret = secret
        self.additionalSecrets = additionalSecrets
    }

    private var secrets: [WebhookSecret] { [secret] + additionalSecrets }

    // MARK: - Signing

    /// The `webhook-signature` value for one delivery: `v1,<base64 HMAC-SHA256>`, one per
    /// secret, separated by spaces (Standard Webhooks' form for a rotation).
    /// - Parameters:
    ///   - id: The `webhook-id`.
    ///   - timestamp: The `webhook-timestamp`, unix seconds.
    ///   - body: The exact bytes sent as the body.
    public func signature(id: String, timestamp: Int64, body: some Sequence<UInt8>) -> String {
        let signed = Self.signedContent(id: id, timestamp: String(timestamp), body: body)
        return secrets.map { secret in
            Self.version + ","
                + Data(HMAC<SHA256>.authenticationCode(for: signed, using: secret.key)).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The headers of one delivery attempt, in the order they are sent.
    /// - Parameters:
    ///   - id: The event's stable id (`webhook-id`).
    ///   - timestamp: When the attempt is made; sent in whole unix seconds.
    ///   - body: The exact bytes sent as the body.
    public func headers(id: String, timestamp: Date, body: some Sequence<UInt8>) -> [(name: String, value: String)] {
        let seconds = Self.unixSeconds(timestamp)
        return [
            ("content-type", "application/json"),
            ("webhook-id", id),
            ("webhook-timestamp", String(seconds)),
            ("webhook-signature", signature(id: id, timestamp: seconds, body: body)),
        ]
    }

    // MARK: - Verifying

    /// Checks a delivery as a receiver must: the timestamp is within `tolerance` of `now`, and
    /// one of the space-separated signatures in the `webhook-signature` header is a `v1`
    /// signature of `{id}.{timestamp}.{body}` under this secret (compared in constant time).
    ///
    /// ```swift
    /// try signer.verify(
    ///     id: request.headers["webhook-id"], timestamp: request.headers["webhook-timestamp"],
    ///     signature: request.headers["webhook-signature"], body: bodyBytes)
    /// ```
    /// - Parameters:
    ///   - id: The `webhook-id` header, nil if absent.
    ///   - timestamp: The `webhook-timestamp` header, nil if absent.
    ///   - signature: The `webhook-signature` header, nil if absent.
    ///   - body: The body exactly as received, before any JSON parsing.
    ///   - now: The receiver's clock.
    ///   - tolerance: How far the timestamp may be from `now`, either way.
    /// - Throws: ``WebhookVerificationError`` saying what is wrong.
    public func verify(
        id: String?, timestamp: String?, signature: String?, body: some Sequence<UInt8>, now: Date = Date(),
        tolerance: Duration = defaultTolerance
    ) throws(WebhookVerificationError) {
        guard let id, !id.isEmpty else { throw WebhookVerificationError(.missingHeader, "webhook-id is missing") }
        guard let timestamp else { throw WebhookVerificationError(.missingHeader, "webhook-timestamp is missing") }
        guard let signature else { throw WebhookVerificationError(.missingHeader, "webhook-signature is missing") }
        guard let seconds = Int64(timestamp) else {
            throw WebhookVerificationError(.invalidTimestamp, "webhook-timestamp is not unix seconds")
        }
        let skew = Double(seconds) - now.timeIntervalSince1970
        let limit = tolerance.timeInterval
        guard skew >= -limit else { throw WebhookVerificationError(.timestampTooOld, "signed \(Int(-skew)) s ago") }
        guard skew <= limit else { throw WebhookVerificationError(.timestampTooNew, "signed \(Int(skew)) s ahead") }

        let signed = Self.signedContent(id: id, timestamp: timestamp, body: body)
        for candidate in signature.split(separator: " ") {
            let parts = candidate.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == Self.version, let mac = Data(base64Encoded: String(parts[1])) else {
                continue
            }
            for secret in secrets
            where HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: secret.key) {
                return
            }
        }
        throw WebhookVerificationError(.noMatchingSignature, "no v1 signature matches the body")
    }

    // MARK: - Internals

    /// `{id}.{timestamp}.{body}`, the bytes the signature covers.
    private static func signedContent(id: String, timestamp: String, body: some Sequence<UInt8>) -> [UInt8] {
        var content = [UInt8]()
        content.reserveCapacity(id.utf8.count + timestamp.utf8.count + 2 + body.underestimatedCount)
        content.append(contentsOf: id.utf8)
        content.append(UInt8(ascii: "."))
        content.append(contentsOf: timestamp.utf8)
        content.append(UInt8(ascii: "."))
        content.append(contentsOf: body)
        return content
    }

    static func unixSeconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
