import Crypto
import Foundation
import PipelineCore
import StorePlugins

/// Checks a `Stripe-Signature` header as Stripe documents it: `t=<unix seconds>` and one or
/// more `v1=<hex HMAC-SHA256>` of `"<t>.<body>"` under the endpoint's signing secret.
///
/// Every secret of a rotation is tried; the timestamp must be within the tolerance either
/// way (a replayed old event and a clock far ahead are both refused). Other schemes (`v0`)
/// are ignored, as Stripe's own libraries do.
public struct StripeSignature: Sendable {
    /// The signing secrets (`whsec_…`), as Stripe shows them: the whole string is the key.
    public let secrets: [String]
    public let tolerance: Duration

    public init(secrets: [String], tolerance: Duration = .seconds(300)) {
        self.secrets = secrets
        self.tolerance = tolerance
    }

    /// Nothing when `header` signs `body` at a time near `now`.
    /// - Throws: a 401 ``StoreInputError`` saying what does not hold (never a secret).
    public func verify(header: String?, body: [UInt8], now: Date) throws(StoreInputError) {
        guard let header, !header.isEmpty else { throw .unauthorized("the Stripe-Signature header is missing") }
        var timestamp: String?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .unauthorized("the Stripe-Signature header is garbled") }
            switch pair[0] {
            case "t":
                guard timestamp == nil else { throw .unauthorized("the Stripe-Signature header has two timestamps") }
                timestamp = pair[1]
            case "v1":
                // A value that is no SHA-256 in hex can match nothing; it is skipped, not fatal.
                if let mac = Hex.bytes(String(pair[1])), mac.count == SHA256.byteCount { signatures.append(mac) }
            default:
                continue
            }
        }
        guard let timestamp, let seconds = Int64(timestamp) else {
            throw .unauthorized("the Stripe-Signature header has no timestamp")
        }
        guard !signatures.isEmpty else { throw .unauthorized("the Stripe-Signature header has no v1 signature") }
        let skew = Double(seconds) - now.timeIntervalSince1970
        let limit = Double(tolerance.components.seconds)
        guard skew >= -limit else { throw .unauthorized("the signature is \(Int(-skew)) s old, beyond the tolerance") }
        guard skew <= limit else { throw .unauthorized("the signature is \(Int(skew)) s ahead, beyond the tolerance") }

        let signed = Array("\(timestamp).".utf8) + body
        for secret in secrets {
            let key = SymmetricKey(data: Array(secret.utf8))
            // isValidAuthenticationCode compares in constant time.
            for mac in signatures where HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key)
            {
                return
            }
        }
        throw .unauthorized("no v1 signature matches the body under the endpoint's secrets")
    }

    /// The `Stripe-Signature` header of `body` at `timestamp` under `secret`: what Stripe sends
    /// (for tests and the stub's events).
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(timestamp),v1=" + Hex.string(mac)
    }
}
