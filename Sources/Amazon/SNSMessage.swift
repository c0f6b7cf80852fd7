import Crypto
import CryptoExtras
import Foundation

/// One message Amazon SNS posts to an HTTPS subscriber (`text/plain`, a JSON object), and the
/// check of its signature as AWS documents it ("Verifying the signatures of Amazon SNS
/// messages"): the string to sign is the message's members in a fixed order, each `Name\nValue\n`;
/// `SignatureVersion` 1 signs it with SHA1withRSA, 2 with SHA256withRSA, by the key of the
/// certificate at `SigningCertURL`.
/// https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html
public struct SNSMessage: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case notification = "Notification"
        case subscriptionConfirmation = "SubscriptionConfirmation"
        case unsubscribeConfirmation = "UnsubscribeConfirmation"
    }

    public var kind: Kind
    public var messageID: String
    public var topicARN: String
    public var subject: String?
    public var message: String
    public var timestamp: String
    public var signatureVersion: String
    public var signature: [UInt8]
    public var signingCertURL: String
    /// A confirmation's token and the URL that confirms it.
    public var token: String?
    public var subscribeURL: String?

    public init(
        kind: Kind, messageID: String, topicARN: String, subject: String? = nil, message: String, timestamp: String,
        signatureVersion: String = "2", signature: [UInt8] = [], signingCertURL: String, token: String? = nil,
        subscribeURL: String? = nil
    ) {
        self.kind = kind
        self.messageID = messageID
        self.topicARN = topicARN
        self.subject = subject
        self.message = message
        self.timestamp = timestamp
        self.signatureVersion = signatureVersion
        self.signature = signature
        self.signingCertURL = signingCertURL
        self.token = token
        self.subscribeURL = subscribeURL
    }

    /// Why a body is not an SNS message.
    public struct Malformed: Error, Hashable, Sendable {
        public var member: String
        public var message: String
    }

    /// The message a body holds. - Throws: ``Malformed`` naming the member at fault.
    public init(body: [UInt8]) throws(Malformed) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw Malformed(member: "", message: "the body is not an SNS message (a JSON object)")
        }
        func text(_ name: String, required: Bool = true) throws(Malformed) -> String? {
            switch object[name] {
            case let value as String where !value.isEmpty && value.utf8.count <= 262_144: return value
            case nil where !required, is NSNull where !required: return nil
            default: throw Malformed(member: name, message: "\(name) must be a non-empty string")
            }
        }
        guard let kind = Kind(rawValue: try text("Type")!) else {
            throw Malformed(member: "Type", message: "Type must be Notification or a confirmation")
        }
        guard let signature = Data(base64Encoded: try text("Signature")!), !signature.isEmpty else {
            throw Malformed(member: "Signature", message: "Signature must be base64")
        }
        let confirming = kind != .notification
        self.init(
            kind: kind, messageID: try text("MessageId")!, topicARN: try text("TopicArn")!,
            subject: try text("Subject", required: false), message: try text("Message")!,
            timestamp: try text("Timestamp")!, signatureVersion: try text("SignatureVersion")!,
            signature: Array(signature), signingCertURL: try text("SigningCertURL")!,
            token: try text("Token", required: confirming), subscribeURL: try text("SubscribeURL", required: confirming)
        )
    }

    /// The bytes SNS signs: the members AWS names for the message's type, in its order.
    public var stringToSign: [UInt8] {
        var pairs: [(String, String?)] = [("Message", message), ("MessageId", messageID)]
        switch kind {
        case .notification:
            pairs += [("Subject", subject), ("Timestamp", timestamp), ("TopicArn", topicARN), ("Type", kind.rawValue)]
        case .subscriptionConfirmation, .unsubscribeConfirmation:
            pairs += [
                ("SubscribeURL", subscribeURL), ("Timestamp", timestamp), ("Token", token), ("TopicArn", topicARN),
                ("Type", kind.rawValue),
            ]
        }
        return Array(pairs.compactMap { name, value in value.map { "\(name)\n\($0)\n" } }.joined().utf8)
    }

    /// Whether ``signature`` is `key`'s over ``stringToSign`` with the version's hash; false for
    /// a version AWS does not define.
    public func isSigned(by key: _RSA.Signing.PublicKey) -> Bool {
        let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
        switch signatureVersion {
        case "1":
            return key.isValidSignature(
                signature, for: Insecure.SHA1.hash(data: stringToSign), padding: .insecurePKCS1v1_5)
        case "2":
            return key.isValidSignature(signature, for: SHA256.hash(data: stringToSign), padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    /// When SNS sent it (`Timestamp`, ISO 8601 with milliseconds); nil when unreadable.
    public var sentAt: Date? {
        (try? Date(timestamp, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(timestamp, strategy: .iso8601))
    }

    /// The body SNS posts for it (what the stub store sends).
    public var body: [UInt8] {
        var object: [String: Any] = [
            "Type": kind.rawValue, "MessageId": messageID, "TopicArn": topicARN, "Message": message,
            "Timestamp": timestamp, "SignatureVersion": signatureVersion,
            "Signature": Data(signature).base64EncodedString(), "SigningCertURL": signingCertURL,
        ]
        object["Subject"] = subject
        object["Token"] = token
        object["SubscribeURL"] = subscribeURL
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Array(data)
    }
}
