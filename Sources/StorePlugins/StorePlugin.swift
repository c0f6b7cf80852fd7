import Database
import HTTPClient
import Logging
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter

/// A store that plugs into the pipeline: everything the stages need of it, in one module.
///
/// The intake asks it to check what backends post (``receiptMembers``) and what the store
/// pushes (``notification(_:)``), stores the ``StoreEvidence`` it returns, and relays it;
/// the validator hands that evidence back to its ``verifier(_:)``; the fulfiller credits
/// what the verifier found with the engine every store shares, and owes the store each
/// ``VerifiedTransaction/confirmation`` it asked for, which ``confirm(_:context:)`` pays.
/// A store is registered once, in ``StoreRegistry/available``; nothing else names it.
public protocol StorePlugin: Sendable {
    /// The store's id: lowercase letters, digits and `_` (`huawei`). Its evidence, its
    /// route `POST /v1/<id>/notifications`, its metrics' `store` label and its rows say it.
    static var id: String { get }

    /// The store as the environment configures it, or nil when it is not configured (its
    /// evidence is then refused at the intake as `<id>_not_configured`).
    /// - Throws: ``SettingError`` naming the variable at fault, never a secret.
    init?(environment: EnvironmentReader) throws(SettingError)

    /// Its members in an app of the apps file (`IAP_APPS`), each standing for one of the
    /// variables ``init(environment:)`` reads: how one pipeline serves several apps, each
    /// with its own credentials at this store. Its identities (``AppsFileSection/Member/isIdentity``)
    /// tell the apps apart.
    static var appsFileSection: AppsFileSection { get }

    /// The prefixes of every variable ``init(environment:)`` reads (`IAP_HUAWEI_`): one of
    /// them set is the store configured on purpose (`iap up` refuses to start with none).
    static var variablePrefixes: [String] { get }

    /// The member of `POST /v1/receipts` that carries this store's purchase (`huawei`), or
    /// nil when backends post nothing (Stripe's payments arrive as the store's events).
    var receiptMember: String? { get }

    /// Every member of `POST /v1/receipts` that carries this store's evidence, in the order
    /// errors list them (Apple's `receipt_data`, `signed_transaction`); by default
    /// ``receiptMember`` alone. A body carries one member of one store.
    var receiptMembers: [String] { get }

    /// Checks the value of ``receiptMember`` (JSON as `JSONSerialization` reads it).
    /// Pure: no I/O. - Throws: ``StoreInputError`` naming the member at fault.
    func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence

    /// Checks the value of `member`, one of ``receiptMembers``; by default
    /// ``receiptEvidence(_:)``. Pure: no I/O.
    /// - Throws: ``StoreInputError`` naming the member at fault.
    func receiptEvidence(_ value: Any, member: String) throws(StoreInputError) -> StoreEvidence

    /// Whether the store pushes notifications to `/v1/<id>/notifications`.
    var takesNotifications: Bool { get }

    /// How the store calls that route (method, content types); by default a `POST` of any
    /// content type.
    var notificationRoute: NotificationRoute { get }

    /// The answer the store expects for `outcome`, in its own words; nil (the default) for
    /// the intake's own (`200 {"notification_id"}`, or its error body).
    func reply(to outcome: NotificationOutcome) -> NotificationReply?

    /// How the intake checks a notification's body before the plug-in stores it: not at all
    /// (the default: a signature over its bytes vouches for it), or as strictly as every JSON
    /// body it reads (``NotificationBody``).
    var notificationBody: NotificationBody { get }

    /// Authenticates and reads one pushed notification. Only what this returns is stored;
    /// a request it refuses stores nothing.
    /// - Throws: ``StoreInputError`` (401 for a credential that does not hold, 400 else).
    func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification

    /// The verifier of this store's evidence, over the pipeline's shared parts.
    func verifier(_ context: StoreContext) throws -> any ReceiptVerifier

    /// Pays what a credited transaction's ``VerifiedTransaction/confirmation`` owes.
    func confirm(_ confirmation: String, context: StoreContext) async -> ConfirmationOutcome

    /// The same, knowing the id of the transaction credited (Apple binds its account's token
    /// to the purchase); by default ``confirm(_:context:)``. What `StoreConfirmer` calls.
    func confirm(_ confirmation: String, transactionID: String, context: StoreContext) async
        -> ConfirmationOutcome

    /// Long-running work of its own (pollers), run by the fulfiller's process.
    func services(_ context: StoreContext) -> [any Service]

    /// Whether it is set up to call its store (verifier, confirmations, services), and so
    /// spends the call budgets the database keeps: false only for a store that is on
    /// without credentials here (Google without a service account rejects its purchases).
    var talksToStore: Bool { get }

    /// Whether the fulfiller must run ``confirm(_:context:)`` and ``services(_:)`` for it
    /// (`StoreConfirmer` over `store_confirmations`): by default, when it talks to its store
    /// (Google Play with a service account); a process where it does not leaves its rows to
    /// one where it does.
    var runsInFulfiller: Bool { get }

    /// How it is set up, in one line for `iap up`'s banner: where it is asked, what is on,
    /// and the variable that turns on what is off. Never a secret.
    var summary: String { get }

    /// The identity (a bundle id, a package name: an identity member of
    /// ``appsFileSection``) that `evidence` names on its face, read without verifying it; nil
    /// when it names none before the store is asked. A pipeline of several apps refuses a
    /// purchase that names another app's identity without a call, and routes a notice of a
    /// release before notices proved their app by it. Pure: no I/O.
    static func identity(namedBy evidence: StoreEvidence) -> String?

    /// This store refusing evidence that proves, once verified, to be one of `otherApps`',
    /// naming that app (``OtherApps/rejection(for:)``): for evidence whose identity only the
    /// store's answer tells (Apple's receipts). By default itself: evidence that names its
    /// identity on its face is refused before the store is asked.
    func refusing(_ otherApps: OtherApps) -> Self
}

extension StorePlugin {
    public var id: String { Self.id }
    public var receiptMember: String? { nil }
    public var receiptMembers: [String] { receiptMember.map { [$0] } ?? [] }
    public var takesNotifications: Bool { false }
    public var notificationBody: NotificationBody { .opaque }
    public var notificationRoute: NotificationRoute { NotificationRoute() }
    public func reply(to outcome: NotificationOutcome) -> NotificationReply? { nil }

    public func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
        throw StoreInputError.invalid("unknown_field", "\(Self.id) takes no receipts", member: Self.id)
    }

    public func receiptEvidence(_ value: Any, member: String) throws(StoreInputError) -> StoreEvidence {
        try receiptEvidence(value)
    }

    public func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
        throw StoreInputError(status: 404, code: "not_found", message: "\(Self.id) sends no notifications here")
    }

    public func confirm(_ confirmation: String, context: StoreContext) async -> ConfirmationOutcome {
        .done
    }

    public func confirm(_ confirmation: String, transactionID: String, context: StoreContext) async
        -> ConfirmationOutcome
    {
        await confirm(confirmation, context: context)
    }

    public func services(_ context: StoreContext) -> [any Service] { [] }

    public var talksToStore: Bool { true }
    public var runsInFulfiller: Bool { talksToStore }

    public static func identity(namedBy evidence: StoreEvidence) -> String? { nil }

    public var summary: String { "on" }

    public func refusing(_ otherApps: OtherApps) -> Self { self }
}

/// How the intake checks the JSON body of a store's notification, beside what its plug-in
/// checks: as strictly as every body it reads (a JSON object, each key once, no control
/// character in the members `read`; members a store adds and nobody reads are neither stored
/// nor refused).
public enum NotificationBody: Sendable {
    /// Not at all: the body is the plug-in's alone.
    case opaque
    /// After the plug-in accepted the request's credential (a header), so that one whose
    /// credential does not hold is a 401 whatever its body; what does not hold is refused
    /// with `code`.
    case checkedAfter(read: [[String]], code: String)
    /// Before the plug-in reads it, when the credential is inside the body (Apple's signed
    /// payload): a JSON content type (else 415), then the intake's own codes (`invalid_json`,
    /// `invalid_<member>` for a control character in a member read).
    case checkedFirst(read: [[String]])
}

/// What every store's verifier and services may use: the pipeline's one HTTP client, the
/// call budgets every process shares, the catalog and a logger; for its services, the
/// database and the lead of a job that runs in one process at a time.
public struct StoreContext: Sendable {
    public var httpClient: CurlHTTPClient
    public var budgets: any CallBudgetKeeper
    public var catalog: Catalog
    public var logger: Logger
    /// The pipeline's database, where a store's services keep their own rows; nil where the
    /// process has none (a validator's context).
    public var database: (any SQLDatabase)?
    /// The lead of the job of this name: the database's where several processes share it,
    /// always this process's where one process runs every stage.
    public var leadership: @Sendable (String) -> any Leadership
    /// The app whose stores these are (issue 30): a store's services take only its accounts'
    /// work. The one app of the single-app settings by default.
    public var app: AppScope = .single

    public init(
        httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper, catalog: Catalog, logger: Logger,
        database: (any SQLDatabase)? = nil,
        leadership: @escaping @Sendable (String) -> any Leadership = { _ in AlwaysLeader() }
    ) {
        self.httpClient = httpClient
        self.budgets = budgets
        self.catalog = catalog
        self.logger = logger
        self.database = database
        self.leadership = leadership
    }
}

/// How paying a confirmation went.
public enum ConfirmationOutcome: Hashable, Sendable {
    case done
    /// Try again later (network, 5xx, 429); `retryAfter` when the store said.
    case transient(reason: String, retryAfter: Duration? = nil)
    /// Will never succeed (the store does not know the purchase): given up, logged.
    case failed(reason: String)
}
