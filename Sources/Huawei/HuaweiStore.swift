import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// Huawei AppGallery as a plug-in store: purchases posted as the `huawei` member of
/// `POST /v1/receipts`, server notifications (version 2) at `POST /v1/huawei/notifications`,
/// verified against Huawei's Order and Subscription services, and consumables confirmed
/// once credited. See docs/huawei.md.
///
/// ```swift
/// if let huawei = try HuaweiStore(environment: EnvironmentReader()) {
///     let verifier = try huawei.verifier(context)
/// }
/// ```
public struct HuaweiStore: StorePlugin {
    /// The store's id in evidence, routes, metrics and rows.
    public static let id = "huawei"

    public let settings: HuaweiSettings
    /// One access token for every client this store makes (Huawei limits how often they are fetched).
    private let tokens: HuaweiAccessTokens
    private let now: @Sendable () -> Date

    /// - Parameter now: The clock, for the access token's expiry and the call budget.
    public init(settings: HuaweiSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.now = now
        self.tokens = HuaweiAccessTokens(
            oauthURL: settings.oauthURL, clientID: settings.clientID, clientSecret: settings.clientSecret, now: now)
    }

    /// The store as the environment configures it (``HuaweiSettings``), or nil when
    /// `IAP_HUAWEI_CLIENT_ID` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault.
    public init?(environment: EnvironmentReader) throws(SettingError) {
        guard let settings = try HuaweiSettings(environment: environment) else { return nil }
        self.init(settings: settings)
    }

    // MARK: Receipts

    public var receiptMember: String? { HuaweiPurchase.member }

    /// The `huawei` member checked (``HuaweiPurchase``), as evidence of kind `purchase`.
    public func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
        StoreEvidence(store: Self.id, kind: "purchase", payload: try HuaweiPurchase(member: value).payload)
    }

    // MARK: Notifications

    public var takesNotifications: Bool { true }

    /// A version 2 server notification (``HuaweiNotice``): a subscription's, authenticated by
    /// this app's IAP public key; an order's, which Huawei does not sign, a hint about the
    /// purchase its token names, believed of the app that recorded that purchase only.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        let notice = try HuaweiNotice(body: request.body, key: settings.publicKey)
        var accepted = InboundNotification(
            messageID: notice.messageID,
            evidence: StoreEvidence(store: Self.id, kind: "notification", payload: notice.payload))
        if notice.event == .order {
            accepted.proof = .hint(originalTransactionID: HuaweiVerifier.originalTransactionID(of: notice))
        }
        return accepted
    }

    // MARK: Verification and confirmation

    /// A client over `httpClient` (shared, not owned), with this store's access token, its
    /// calls booked in `budgets` (the pipeline's: see ``HuaweiQuota``).
    public func client(
        httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper()
    ) -> HuaweiClient {
        HuaweiClient(
            settings: settings, httpClient: httpClient, timeout: .seconds(10), budgets: budgets, now: now,
            tokens: tokens)
    }

    /// A verifier over the pipeline's HTTP client, its calls booked in `context.budgets`.
    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        HuaweiVerifier(client: client(httpClient: context.httpClient, budgets: context.budgets))
    }

    /// Confirms a consumable's delivery (``HuaweiConfirmation``). Huawei's "already
    /// confirmed" counts as done, so a confirmation repeated after a lost answer succeeds.
    public func confirm(_ confirmation: String, context: StoreContext) async -> ConfirmationOutcome {
        guard let owed = HuaweiConfirmation(json: confirmation) else {
            return .failed(reason: "huawei_confirmation_unreadable")
        }
        return await confirm(owed, client: client(httpClient: context.httpClient, budgets: context.budgets))
    }

    /// The same, over `client`.
    public func confirm(_ owed: HuaweiConfirmation, client: HuaweiClient) async -> ConfirmationOutcome {
        do {
            try await client.confirm(productID: owed.productID, purchaseToken: owed.purchaseToken)
            return .done
        } catch {
            if error.responseCode == "9" { return .done }
            switch error.code {
            case .notFound, .invalidRequest:
                return .failed(reason: "huawei_\(error.code.rawValue)" + (error.responseCode.map { "_\($0)" } ?? ""))
            case .rateLimited, .unavailable, .unauthorized, .malformedResponse, .overBudget:
                return .transient(reason: "huawei_\(error.code.rawValue)", retryAfter: error.retryAfter)
            }
        }
    }
}
