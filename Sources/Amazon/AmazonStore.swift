import CryptoExtras
import Foundation
import HTTPClient
import Logging
import PipelineCore
import StorePlugins

/// Amazon Appstore as a plug-in store: purchases posted as the `amazon` member of
/// `POST /v1/receipts`, Real-Time Notifications through Amazon SNS at
/// `POST /v1/amazon/notifications` (`text/plain`, signed by SNS), each read back from RVS before
/// anything moves. See docs/amazon.md.
public struct AmazonStore: StorePlugin {
    public static let id = "amazon"

    public let settings: AmazonSettings
    let certificates: SNSCertificates
    let logger: Logger
    let now: @Sendable () -> Date

    public init(settings: AmazonSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.certificates = SNSCertificates()
        self.logger = Logger(label: "iap.amazon")
        self.now = now
    }

    /// The store as the environment configures it (``AmazonSettings``), or nil when
    /// `IAP_AMAZON_SHARED_SECRET` is unset.
    public init?(environment: EnvironmentReader) throws(SettingError) {
        guard let settings = try AmazonSettings(environment: environment) else { return nil }
        self.init(settings: settings)
    }

    // MARK: Receipts

    public var receiptMember: String? { AmazonPurchase.member }

    /// The `amazon` member checked (``AmazonPurchase``), as evidence of kind `purchase`.
    public func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
        StoreEvidence(store: Self.id, kind: "purchase", payload: try AmazonPurchase(member: value).payload)
    }

    /// The package name a posted purchase names (when the backend says) or a notice states.
    public static func identity(namedBy evidence: StoreEvidence) -> String? {
        StoreInput.members(evidence.payload)?["package_name"]
    }

    // MARK: Notifications

    public var takesNotifications: Bool { true }

    /// SNS posts `text/plain` (`application/json` when the subscription asks for it).
    public var notificationRoute: NotificationRoute {
        NotificationRoute(method: .post, contentTypes: ["text/plain", "application/json"])
    }

    /// An SNS message whose signature holds by a certificate of Amazon SNS's and is at most
    /// ``AmazonSettings/noticeMaxAge`` old: a confirmation is acknowledged (its token logged for
    /// the Developer Console); a notification of this app's is a hint about the receipt it names,
    /// stored once per SNS message id.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        let message = try await authenticated(request)
        switch message.kind {
        case .subscriptionConfirmation, .unsubscribeConfirmation:
            logger.notice(
                "Amazon RTN endpoint \(message.kind.rawValue): paste this token in the Developer Console",
                metadata: ["token": "\(message.token ?? "")", "topic": "\(message.topicARN)"])
            var acknowledged = InboundNotification(
                messageID: message.messageID,
                evidence: StoreEvidence(store: Self.id, kind: StoreEvidence.notificationKind, payload: "{}"))
            acknowledged.proof = .acknowledgement
            return acknowledged
        case .notification:
            let notice = try AmazonNotice(message: message.message, messageID: message.messageID)
            guard notice.packageName == settings.packageName else {
                throw StoreInputError(status: 401, code: "unknown_app", message: "the notification is another app's")
            }
            var accepted = InboundNotification(
                messageID: message.messageID,
                evidence: StoreEvidence(store: Self.id, kind: StoreEvidence.notificationKind, payload: notice.payload))
            // SNS's signature says SNS sent it, not that this app's Amazon account did: a hint.
            accepted.proof = .hint(originalTransactionID: "amazon:" + notice.receiptID)
            return accepted
        }
    }

    /// The SNS message of `request`, its signature and age checked.
    func authenticated(_ request: InboundRequest) async throws(StoreInputError) -> SNSMessage {
        // SNS's credential is inside its message: a body that is not one carries none (401).
        let message: SNSMessage
        do {
            message = try SNSMessage(body: request.body)
        } catch {
            throw StoreInputError(
                status: 401, code: "unauthorized", message: "not an SNS message: " + error.message,
                member: error.member.isEmpty ? nil : error.member)
        }
        if let declared = request.headers["x-amz-sns-message-type"], declared != message.kind.rawValue {
            throw StoreInputError(
                status: 401, code: "unauthorized",
                message: "not an SNS message: x-amz-sns-message-type is not its Type",
                member: "Type")
        }
        let now = now()
        let key: _RSA.Signing.PublicKey
        do {
            key = try await certificates.key(at: message.signingCertURL, now: now)
        } catch {
            if error.isTransient { throw StoreInputError(status: 503, code: "unavailable", message: error.reason) }
            throw .unauthorized(error.reason)
        }
        guard message.isSigned(by: key) else { throw .unauthorized("the SNS signature does not hold") }
        guard let sent = message.sentAt, sent.timeIntervalSince(now) < 300,
            now.timeIntervalSince(sent) <= Double(settings.noticeMaxAge.components.seconds)
        else { throw .unauthorized("the SNS message is stale (Timestamp out of range)") }
        return message
    }

    // MARK: Verification

    /// A client over `httpClient` (shared, not owned), its calls booked in `budgets`.
    public func client(httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper())
        -> AmazonClient
    {
        AmazonClient(settings: settings, httpClient: httpClient, budgets: budgets, now: now)
    }

    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        AmazonVerifier(client: client(httpClient: context.httpClient, budgets: context.budgets))
    }

    /// Amazon is told nothing by the server after a credit (the app's SDK calls
    /// `notifyFulfillment`).
    public var runsInFulfiller: Bool { false }

    public var summary: String {
        "\(settings.packageName)  RVS: \(settings.rvsURL)\(settings.sandbox ? " (sandbox)" : "")"
    }

    public static let variablePrefixes = ["IAP_AMAZON_"]

    /// `amazon:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "amazon",
        members: [
            "package_name": .init(variable: "IAP_AMAZON_PACKAGE_NAME", isIdentity: true),
            // One shared secret per developer account: two apps of one account share it.
            "shared_secret": .init(variable: AmazonSettings.secretVariable, isSecret: true),
            "environment": .init(variable: "IAP_AMAZON_ENVIRONMENT"),
            "rvs_url": .init(variable: "IAP_AMAZON_RVS_URL"),
            "calls_per_second": .init(variable: AmazonSettings.callsVariable),
        ],
        required: ["": ["package_name", "shared_secret"]])
}
