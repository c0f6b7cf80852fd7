import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// Xiaomi's game payments (小米游戏 SDK) as a plug-in store: orders posted as the `xiaomi`
/// member of `POST /v1/receipts`, Xiaomi's payment notices at `GET /v1/xiaomi/notifications`
/// (answered in Xiaomi's words, `{"errcode":200}`), each confirmed with Xiaomi's order query
/// before anything is credited. See docs/xiaomi.md.
public struct XiaomiStore: StorePlugin {
    public static let id = "xiaomi"

    public let settings: XiaomiSettings
    private let signature: XiaomiSignature
    private let now: @Sendable () -> Date

    public init(settings: XiaomiSettings, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.signature = XiaomiSignature(secret: settings.appSecret)
        self.now = now
    }

    /// The store as the environment configures it (``XiaomiSettings``), or nil when
    /// `IAP_XIAOMI_APP_ID` is unset.
    public init?(environment: EnvironmentReader) throws(SettingError) {
        guard let settings = try XiaomiSettings(environment: environment) else { return nil }
        self.init(settings: settings)
    }

    // MARK: Receipts

    public var receiptMember: String? { XiaomiOrder.member }

    /// The `xiaomi` member checked (``XiaomiOrder``), as evidence of kind `purchase`.
    public func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
        StoreEvidence(store: Self.id, kind: "purchase", payload: try XiaomiOrder(member: value).payload)
    }

    /// The Xiaomi app id a posted order names, or a notice states: `app_id` in both payloads.
    public static func identity(namedBy evidence: StoreEvidence) -> String? {
        StoreInput.members(evidence.payload)?["app_id"]
    }

    // MARK: Notifications

    public var takesNotifications: Bool { true }

    /// Xiaomi calls with a `GET` and the order in the query string.
    public var notificationRoute: NotificationRoute { NotificationRoute(method: .get) }

    /// A payment notice signed with this app's `AppSecret` (``XiaomiNotice``), stored once per
    /// Xiaomi's order id.
    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        let info = try XiaomiNotice.read(query: request.query, appID: settings.appID, signature: signature)
        return InboundNotification(
            messageID: info.orderID,
            evidence: StoreEvidence(store: Self.id, kind: StoreEvidence.notificationKind, payload: info.payload))
    }

    /// Xiaomi reads `errcode`, not the status: `200` ends its resends (``XiaomiNotice/errcode(_:)``).
    public func reply(to outcome: NotificationOutcome) -> NotificationReply? {
        let errcode = XiaomiNotice.errcode(outcome)
        var body = #"{"errcode":\#(errcode)"#
        if case .refused(_, let code, _, _) = outcome { body += #","errMsg":"\#(code)""# }
        let status: Int =
            switch outcome {
            case .refused(let status, _, _, _): status
            case .stored, .dropped, .acknowledged: 200
            }
        return NotificationReply(status: status, body: body + "}")
    }

    // MARK: Verification

    /// A client over `httpClient` (shared, not owned), its queries booked in `budgets`.
    public func client(httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper())
        -> XiaomiClient
    {
        XiaomiClient(settings: settings, httpClient: httpClient, budgets: budgets, now: now)
    }

    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        XiaomiVerifier(
            client: client(httpClient: context.httpClient, budgets: context.budgets), catalog: context.catalog)
    }

    /// Xiaomi is told nothing after a credit: its notice's `{"errcode":200}` is all it asks.
    public var runsInFulfiller: Bool { false }

    public var summary: String { "app \(settings.appID)  orders: \(settings.queryURL)" }

    public static let variablePrefixes = ["IAP_XIAOMI_"]

    /// `xiaomi:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "xiaomi",
        members: [
            "app_id": .init(variable: "IAP_XIAOMI_APP_ID", isIdentity: true),
            "app_secret": .init(variable: "IAP_XIAOMI_APP_SECRET", isSecret: true, isUnique: true),
            "query_url": .init(variable: "IAP_XIAOMI_QUERY_URL"),
            "calls_per_second": .init(variable: XiaomiSettings.callsVariable),
        ],
        required: ["": ["app_id", "app_secret"]])
}
