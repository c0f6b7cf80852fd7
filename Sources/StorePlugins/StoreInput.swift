import Foundation
import PipelineCore

/// Why a store refused what was posted: the intake answers it as `status` with the code,
/// the message and the member (`huawei.purchase_token`), and stores nothing.
public struct StoreInputError: Error, Hashable, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var member: String?

    public init(status: Int, code: String, message: String, member: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.member = member
    }

    /// A 400 naming `member`.
    public static func invalid(_ code: String, _ message: String, member: String?) -> StoreInputError {
        StoreInputError(status: 400, code: code, message: message, member: member)
    }

    /// A 401: the request's credential (signature, token) does not hold.
    public static func unauthorized(_ message: String) -> StoreInputError {
        StoreInputError(status: 401, code: "unauthorized", message: message)
    }
}

/// One request a store pushed, as its plug-in sees it.
public struct InboundRequest: Sendable {
    /// Header names lowercased; a repeated header keeps its first value.
    public var headers: [String: String]
    /// The body, at most the intake's limit for notifications (64 KiB).
    public var body: [UInt8]
    /// The query string as sent (percent-encoded, without the `?`); empty when there is none.
    public var query: String

    public init(headers: [String: String], body: [UInt8], query: String = "") {
        self.headers = headers
        self.body = body
        self.query = query
    }
}

/// A pushed notification the store's plug-in accepted: stored once under ``messageID``
/// (the store's own id for it, so its retries find the first), then relayed.
public struct InboundNotification: Hashable, Sendable {
    public var messageID: String
    public var evidence: StoreEvidence
    /// The `message_id` an earlier release stored this same message under in the store's
    /// rows, when it was not `<store>:<messageID>`: a push sent to that release and again to
    /// this one finds the first row instead of making a second. Only the plug-in knows its
    /// history, so it says; empty for a store that never keyed otherwise.
    public var formerKeys: [String]
    /// What ``messageID`` is.
    public var keyedBy: Key
    /// What vouches for it: the plug-in's app's credential, or nothing.
    public var proof: Proof = .credential

    /// What tells a notification sent again from a new one.
    public enum Key: Hashable, Sendable {
        /// The store's own id for it, kept as `<store>:<id>`.
        case messageID
        /// The hash of its payload, for a store that names none and sends the same payload
        /// again until it is answered (Apple's `signedPayload`): ``messageID`` is that hash.
        case payloadHash
    }

    /// What vouches for a notification, and so which app it belongs to.
    public enum Proof: Hashable, Sendable {
        /// The credential of the plug-in's app held (a signature by its key, a token for its
        /// audience, a signed identity of its own): the notification is that app's.
        case credential
        /// Nothing the store signed (Huawei's order notifications): a hint about the purchase
        /// `originalTransactionID` names (as the store's verifier records it), believed only
        /// of the app that recorded that purchase, and only as far as what is read back from
        /// the store with that app's credentials says. A hint about a purchase no app recorded
        /// is dropped unstored, without a call to the store.
        case hint(originalTransactionID: String)
        /// Nothing about money: a message the store needs acknowledged (Amazon SNS's
        /// subscription confirmation, whose token the plug-in hands the operator). Answered
        /// ``NotificationOutcome/acknowledged``; nothing stored or relayed.
        case acknowledgement
    }

    public init(messageID: String, evidence: StoreEvidence, formerKeys: [String] = [], keyedBy: Key = .messageID) {
        self.messageID = messageID
        self.evidence = evidence
        self.formerKeys = formerKeys
        self.keyedBy = keyedBy
    }
}

/// Field checks for plug-ins' members, with the intake's rules and error codes.
public enum StoreInput {
    /// `value` as an object of only `allowed` members.
    public static func object(_ value: Any, member: String, allowed: Set<String>) throws(StoreInputError)
        -> [String: Any]
    {
        guard let object = value as? [String: Any] else {
            throw .invalid("invalid_\(member)", "\(member) must be an object", member: member)
        }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .invalid("unknown_field", "unknown field \(member).\(unknown)", member: "\(member).\(unknown)")
        }
        return object
    }

    /// A string member of 1-`maxLength` printable ASCII characters; nil when absent and not required.
    /// `member` is the path of `object` in the body (`""` for the body itself).
    public static func string(
        _ object: [String: Any], _ key: String, in member: String, required: Bool = true, maxLength: Int = 4096
    ) throws(StoreInputError) -> String? {
        let path = member.isEmpty ? key : "\(member).\(key)"
        guard let raw = object[key], !(raw is NSNull) else {
            if required { throw .invalid("missing_field", "\(path) is required", member: path) }
            return nil
        }
        guard let text = raw as? String else {
            throw .invalid("invalid_field", "\(path) must be a string", member: path)
        }
        guard !text.isEmpty, text.utf8.count <= maxLength, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw .invalid(
                "invalid_field", "\(path) must be 1-\(maxLength) printable ASCII characters without spaces",
                member: path)
        }
        return text
    }

    /// Canonical JSON of string members: sorted keys, no spaces, so the same purchase
    /// posted twice is the same payload (and the same duplicate hash).
    public static func canonicalJSON(_ members: [String: String]) -> String {
        let data = try! JSONSerialization.data(
            withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The string members of canonical JSON written by ``canonicalJSON(_:)``; nil for anything else.
    public static func members(_ json: String) -> [String: String]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: String]
    }
}
