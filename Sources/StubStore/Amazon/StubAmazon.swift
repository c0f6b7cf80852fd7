import Amazon
import Crypto
import CryptoExtras
import Foundation
import Synchronization
import X509

/// Amazon Appstore, as the pipeline meets it: RVS's `verifyReceiptId` over receipts registered
/// here (answered as RVS does, its documented statuses included), and the Real-Time
/// Notifications Amazon pushes through SNS, signed as SNS signs (SignatureVersion 1 or 2) by
/// a certificate the stub serves at `/amazon/sns/`.
///
/// ```swift
/// let amazon = store.amazon
/// let receipt = amazon.buy(userID: "amzn-user-1", productID: "com.example.coins100")
/// let push = amazon.notification("CONSUMABLE_PURCHASED", receiptID: receipt.receiptID)
/// // POST /v1/amazon/notifications, Content-Type: text/plain, push.body
/// ```
public final class StubAmazon: Sendable {
    public struct Configuration: Sendable {
        /// The first this many RVS calls answer `500`.
        public var failFirst = 0
        /// Then the next this many answer `429`.
        public var rateLimitFirst = 0

        public init() {}
    }

    /// The developer account's shared secret the stub takes, and the app's package name.
    public static let sharedSecret = "stub-amazon-shared-secret"
    public static let packageName = "com.example.game.amazon"
    /// SNS's topic for the app's notifications.
    public static let topicARN = "arn:aws:sns:us-east-1:033616359524:LT0XA"
    /// Where the stub serves its SNS certificate, under its base URL.
    public static let certificatePath = "/amazon/sns/SimpleNotificationService-stub.pem"

    public let configuration = Mutex(Configuration())
    let now: @Sendable () -> Date
    let state = Mutex(State())
    private let madeSigner = Mutex<Signer?>(nil)

    struct State {
        /// Receipts by id, with the user they belong to.
        var receipts: [String: (userID: String, receipt: AmazonReceipt)] = [:]
        /// Receipts RVS calls no longer valid (`410`).
        var gone: Set<String> = []
        var calls = 0
        var sequence = 0
        /// The stub's base URL, where its certificate is served (set with its settings).
        var baseURL = "http://127.0.0.1"
    }

    /// The SNS signing key and its self-signed certificate, and a forger's key.
    struct Signer {
        var key: _RSA.Signing.PrivateKey
        var certificatePEM: String
        var forger: _RSA.Signing.PrivateKey
    }

    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// RVS calls answered so far (refusals included).
    public var calls: Int { state.withLock { $0.calls } }

    /// Where the certificate that signs the stub's notifications is served.
    public var certificateURL: String { state.withLock { $0.baseURL } + Self.certificatePath }

    /// Serve the certificate under `url` (the stub's base URL).
    public func serve(at url: String) { state.withLock { $0.baseURL = url } }

    /// A purchase Amazon took: registered and returned, with Amazon's receipt id. A
    /// subscription renews a month from now unless `renewalDate` says.
    @discardableResult
    public func buy(
        userID: String, productID: String, type: AmazonReceipt.ProductType = .consumable, quantity: Int = 1,
        renewalDate: Date? = nil
    ) -> AmazonReceipt {
        state.withLock { state in
            state.sequence += 1
            // Amazon's receipt ids carry `=`, `:` and `-`, which travel escaped in RVS's path.
            let id = "q1YqVrJSSs7P1UvMTazKz9PLTCwo-\(state.sequence)=:3:11"
            // RVS writes milliseconds.
            let date = Date(timeIntervalSince1970: (now().timeIntervalSince1970 * 1000).rounded() / 1000)
            let receipt = AmazonReceipt(
                receiptID: id, productID: productID, productType: type, purchaseDate: date,
                renewalDate: type == .subscription ? renewalDate ?? date.addingTimeInterval(30 * 86_400) : nil,
                quantity: quantity)
            state.receipts[id] = (userID, receipt)
            return receipt
        }
    }

    /// `receipt` of `userID`, registered (or replaced) as it is.
    public func register(_ receipt: AmazonReceipt, userID: String) {
        state.withLock { $0.receipts[receipt.receiptID] = (userID, receipt) }
    }

    /// The receipts of `userID`, oldest first.
    public func receipts(ofUser userID: String) -> [AmazonReceipt] {
        state.withLock { state in
            state.receipts.values.filter { $0.userID == userID }.map(\.receipt)
                .sorted {
                    ($0.purchaseDate ?? .distantPast, $0.receiptID) < ($1.purchaseDate ?? .distantPast, $1.receiptID)
                }
        }
    }

    /// The receipt registered under `receiptID`.
    public func receipt(_ receiptID: String) -> AmazonReceipt? { state.withLock { $0.receipts[receiptID]?.receipt } }

    /// Amazon cancelled the receipt (a refund; a subscription's end) at `date`, now by default.
    public func cancel(_ receiptID: String, at date: Date? = nil, reason: Int = 1) {
        let date = date ?? now()
        state.withLock { state in
            state.receipts[receiptID]?.receipt.cancelDate = date
            state.receipts[receiptID]?.receipt.cancelReason = reason
        }
    }

    /// A subscription renewed: paid until `date`.
    public func renew(_ receiptID: String, until date: Date) {
        state.withLock { $0.receipts[receiptID]?.receipt.renewalDate = date }
    }

    /// RVS answers `410` for the receipt from now on.
    public func invalidate(_ receiptID: String) { _ = state.withLock { $0.gone.insert(receiptID) } }

    // MARK: SNS

    /// The Real-Time Notification `type` about `receiptID`, as SNS posts it: the body (its
    /// `Content-Type` is `text/plain`) and the `x-amz-sns-message-type` header. `forged` signs
    /// with a key not the certificate's; `sentAt` backdates it; `package` names another app.
    public func notification(
        _ type: String, receiptID: String, messageID: String? = nil, version: String = "1", forged: Bool = false,
        sentAt: Date? = nil, package: String = StubAmazon.packageName
    ) -> SNSMessage {
        let user = state.withLock { $0.receipts[receiptID]?.userID } ?? "unknown-user"
        let rtn: [String: Any] = [
            "appPackageName": package, "notificationType": type, "appUserId": user, "receiptId": receiptID,
            "relatedReceipts": [String: Any](), "timestamp": Int64((now().timeIntervalSince1970 * 1000).rounded()),
            "betaProductTransaction": false,
        ]
        let text = String(
            decoding: try! JSONSerialization.data(withJSONObject: rtn, options: [.sortedKeys]), as: UTF8.self)
        let message = SNSMessage(
            kind: .notification, messageID: messageID ?? UUID().uuidString.lowercased(), topicARN: Self.topicARN,
            message: text, timestamp: Self.timestamp(sentAt ?? now()), signatureVersion: version,
            signingCertURL: certificateURL)
        return sign(message, forged: forged)
    }

    /// The subscription confirmation SNS sends when the endpoint is registered in the Developer
    /// Console: its `Token` is what the operator pastes back there.
    public func subscriptionConfirmation(token: String = "2336412f37fb687f5d51e6e2425f004a") -> SNSMessage {
        sign(
            SNSMessage(
                kind: .subscriptionConfirmation, messageID: UUID().uuidString.lowercased(), topicARN: Self.topicARN,
                message: "You have chosen to subscribe to the topic \(Self.topicARN).\nTo confirm the subscription, "
                    + "visit the SubscribeURL included in this message.",
                timestamp: Self.timestamp(now()), signatureVersion: "1", signingCertURL: certificateURL, token: token,
                subscribeURL: "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn="
                    + Self.topicARN + "&Token=" + token),
            forged: false)
    }

    /// `message` signed as SNS signs it (by the certificate's key, or a forger's).
    public func sign(_ message: SNSMessage, forged: Bool = false) -> SNSMessage {
        var message = message
        let signer = self.signer()
        let key = forged ? signer.forger : signer.key
        let data = message.stringToSign
        let signature =
            message.signatureVersion == "1"
            ? try! key.signature(for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
            : try! key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
        message.signature = Array(signature.rawRepresentation)
        return message
    }

    /// The certificate SNS signs with, PEM, as `SigningCertURL` serves it.
    public var certificatePEM: String { signer().certificatePEM }

    func signer() -> Signer {
        madeSigner.withLock { signer in
            if let signer { return signer }
            // Generating RSA keys and a certificate fails only if the crypto library does.
            let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
            let name = try! DistinguishedName { CommonName("sns.amazonaws.com") }
            let certificate = try! Certificate(
                version: .v3, serialNumber: .init(), publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now().addingTimeInterval(-86_400),
                notValidAfter: now().addingTimeInterval(365 * 86_400),
                issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(key))
            let made = Signer(
                key: key, certificatePEM: try! certificate.serializeAsPEM().pemString,
                forger: try! _RSA.Signing.PrivateKey(keySize: .bits2048))
            signer = made
            return made
        }
    }

    /// SNS's `Timestamp`: ISO 8601 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
    }
}
