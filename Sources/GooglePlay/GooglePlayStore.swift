import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// Google Play as a plug-in store: purchases posted as the `google_play` member of
/// `POST /v1/receipts`, real-time developer notifications pushed by Cloud Pub/Sub to
/// `POST /v1/google/notifications`, both verified by reading the purchase back from the
/// Developer API with the service account's token (``GooglePlaySetup``). See docs/google.md.
///
/// Unlike the stores added since, Google is never off: its purchases were always taken by
/// every intake, and a validator without a service account rejects them as
/// `google_play_not_configured` (dead letters to replay once it has one), as before; an
/// intake without the push settings answers Google's pushes 401.
///
/// ```swift
/// let google = try GooglePlayStore(environment: EnvironmentReader())!
/// let verifier = try google.verifier(context)
/// ```
public struct GooglePlayStore: StorePlugin {
    /// The store's id in evidence, routes (`POST /v1/google/notifications`) and rows.
    public static let id = "google"
    /// Why Google's evidence is rejected where no service account is set.
    public static let notConfigured = "google_play_not_configured"

    /// The service account and API; nil where `IAP_GOOGLE_SERVICE_ACCOUNT` is unset.
    public let setup: GooglePlaySetup?
    /// Who may push notifications; nil where `IAP_GOOGLE_PUSH_AUDIENCE` is unset.
    public var push: GooglePushTokenVerifier.Configuration? { pushCheck?.configuration }
    private let pushCheck: GooglePushCheck?
    /// The fulfiller's jobs for Google (GooglePlayStore+Jobs.swift).
    public var jobs: Jobs

    public init(setup: GooglePlaySetup?, push: GooglePushTokenVerifier.Configuration? = nil, jobs: Jobs = .init()) {
        self.setup = setup
        self.pushCheck = push.map(GooglePushCheck.init)
        self.jobs = jobs
    }

    /// The store as the environment configures it: ``GooglePlaySetup`` from
    /// `IAP_GOOGLE_SERVICE_ACCOUNT`, `IAP_GOOGLE_PLAY_API_URL` and `IAP_GOOGLE_PACKAGE_NAMES`;
    /// who may push from `IAP_GOOGLE_PUSH_AUDIENCE`, `IAP_GOOGLE_PUSH_SERVICE_ACCOUNT` and
    /// `IAP_GOOGLE_CERTS_URL`; its jobs' settings (``Jobs/init(environment:)``). Never nil
    /// (see the type's note).
    /// - Throws: ``SettingError`` naming the variable at fault (never the key's contents).
    public init?(environment: EnvironmentReader) throws(SettingError) {
        self.init(
            setup: try GooglePlaySetup(environment: environment), push: try Self.push(environment),
            jobs: try Jobs(environment: environment))
    }

    static func push(_ env: EnvironmentReader) throws(SettingError) -> GooglePushTokenVerifier.Configuration? {
        let audience = env.optional("IAP_GOOGLE_PUSH_AUDIENCE")
        let account = env.optional("IAP_GOOGLE_PUSH_SERVICE_ACCOUNT")
        switch (audience, account) {
        case (nil, nil): return nil
        case (nil, _):
            throw SettingError(
                variable: "IAP_GOOGLE_PUSH_AUDIENCE", problem: "is required with IAP_GOOGLE_PUSH_SERVICE_ACCOUNT")
        case (_, nil):
            throw SettingError(
                variable: "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT", problem: "is required with IAP_GOOGLE_PUSH_AUDIENCE")
        case (let audience?, let account?):
            guard account.contains("@") else {
                throw SettingError(variable: "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT", problem: "is not an e-mail address")
            }
            let certs = try env.httpURL("IAP_GOOGLE_CERTS_URL", default: "https://www.googleapis.com/oauth2/v3/certs")!
            return .init(audience: audience, serviceAccountEmail: account, certsURL: certs)
        }
    }

    // MARK: Receipts

    public var receiptMember: String? { GooglePlayStore.member }

    /// The `google_play` member checked (``purchase(member:)``), as evidence of kind `purchase`.
    public func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
        .googlePlay(try Self.purchase(member: value))
    }

    // MARK: Notifications

    public var takesNotifications: Bool { true }

    /// The members of a push that are read (``GooglePubSubPush``): the intake checks them as
    /// strictly as every body it reads, and refuses what does not hold as `invalid_push`.
    public var notificationBody: NotificationBody {
        .checkedAfter(
            read: [
                ["subscription"], ["message", "data"], ["message", "messageId"], ["message", "message_id"],
                ["message", "publishTime"],
            ], code: "invalid_push")
    }

    /// A push authenticated by its OIDC token (Google's key, this endpoint's audience, the
    /// push subscription's service account), read as ``GooglePubSubPush``; stored once per
    /// Pub/Sub `messageId`.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        guard let pushCheck else {
            throw StoreInputError.unauthorized(
                "Google push notifications are not configured here (IAP_GOOGLE_PUSH_AUDIENCE)")
        }
        do {
            _ = try await pushCheck.verifier().verify(authorization: request.headers["authorization"])
        } catch {
            throw StoreInputError.unauthorized("push token refused: \(error.reason)")
        }
        let notice: GoogleNotice
        do {
            notice = try GooglePubSubPush.notice(from: request.body)
        } catch {
            throw StoreInputError.invalid(
                "invalid_push", error.message, member: error.field.isEmpty ? nil : error.field)
        }
        // The release with Google built in keyed a push by Pub/Sub's bare message id; one it
        // stored and Pub/Sub redelivers to this release is the same notification.
        return InboundNotification(
            messageID: notice.messageID, evidence: .googleNotice(notice), formerKeys: [notice.messageID])
    }

    // MARK: Verification

    /// Google's verifier over the validator's client and budgets, or one that rejects every
    /// purchase as ``notConfigured`` without a service account.
    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        guard let setup else {
            context.logger.info("Google Play is off: its purchases are rejected (set \(GoogleServiceAccount.setting))")
            return Rejecting()
        }
        context.logger.info("Google Play purchases verified with \(setup.account) at \(setup.apiURL)")
        return setup.verifier(httpClient: context.httpClient, catalog: context.catalog, budgets: context.budgets)
    }

    public var talksToStore: Bool { setup != nil }

    private struct Rejecting: ReceiptVerifier {
        func verify(_ submission: Submission) async -> VerificationOutcome {
            .rejected(reason: GooglePlayStore.notConfigured)
        }
    }
}
