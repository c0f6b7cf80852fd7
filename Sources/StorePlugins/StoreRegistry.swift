import PipelineCore

/// The stores a process knows, and which of them the environment configures.
///
/// The list of stores is written once, where the pipeline is composed
/// (`Pipeline/PluginStores.swift`, `PluginStores.registered`); every stage takes its registry from there and
/// routes by ``StoreEvidence/store``.
public struct StoreRegistry: Sendable {
    /// Every store built in, configured or not.
    public let known: [any StorePlugin.Type]
    /// The stores configured here, by id.
    public let configured: [String: any StorePlugin]
    /// The configured stores that take receipts, by their members of `POST /v1/receipts`.
    public let receiptMembers: [String: any StorePlugin]
    /// The members of `POST /v1/receipts` of the configured stores, in the order the stores
    /// are known (Apple's first), each store's in its own order: how errors list them.
    public let memberOrder: [String]
    /// The ids of the stores built in but not configured here (and no member of one that
    /// is), sorted: a request naming one is told so rather than of an unknown field.
    public let unconfiguredIDs: [String]

    public init(known: [any StorePlugin.Type], configured: [any StorePlugin]) {
        self.known = known
        let byID = Dictionary(configured.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.configured = byID
        let ordered =
            known.compactMap { byID[$0.id] }
            + configured.filter { plugin in !known.contains { $0.id == plugin.id } }
        memberOrder = ordered.flatMap(\.receiptMembers)
        let members = Dictionary(
            ordered.flatMap { plugin in plugin.receiptMembers.map { ($0, plugin) } },
            uniquingKeysWith: { first, _ in first })
        receiptMembers = members
        // Computed once: the intake reads them for every receipt it is posted.
        unconfiguredIDs = Set(known.map { $0.id }).subtracting(members.keys).subtracting(members.values.map { $0.id })
            .sorted()
    }

    /// Each of `known` as `environment` configures it.
    /// - Throws: the first store's ``SettingError``.
    public static func configure(_ known: [any StorePlugin.Type], environment: EnvironmentReader)
        throws(SettingError) -> StoreRegistry
    {
        var configured: [any StorePlugin] = []
        for store in known {
            if let plugin = try store.init(environment: environment) { configured.append(plugin) }
        }
        return StoreRegistry(known: known, configured: configured)
    }

    /// No plug-in store configured (what tests of Apple alone use).
    public static let none = StoreRegistry(known: [], configured: [])

    /// This registry with `plugin` configured in place of any store of its id (a test's or
    /// `iap up`'s own settings for one store).
    public func with(_ plugin: any StorePlugin) -> StoreRegistry {
        let others = configured.values.filter { $0.id != plugin.id }
        let types = known.contains { $0.id == plugin.id } ? known : known + [type(of: plugin)]
        return StoreRegistry(known: types, configured: [plugin] + others)
    }

    /// Every known store's members in an app of the apps file, in the order the stores are known.
    public var appsFileSections: [AppsFileSection] { known.map { $0.appsFileSection } }

    /// The identity `evidence` names on its face, as its store reads it
    /// (``StorePlugin/identity(namedBy:)``); nil for a store not known here.
    public func identity(namedBy evidence: StoreEvidence) -> String? {
        known.first { $0.id == evidence.store }?.identity(namedBy: evidence)
    }

    /// This registry with every store refusing the evidence of `otherApps` that only its
    /// store's answer names (``StorePlugin/refusing(_:)``).
    public func refusing(_ otherApps: OtherApps) -> StoreRegistry {
        StoreRegistry(known: known, configured: configured.keys.sorted().map { configured[$0]!.refusing(otherApps) })
    }

    /// The configured stores that push notifications, by id.
    public var notifying: [String: any StorePlugin] { configured.filter { $0.value.takesNotifications } }

    /// The verifier that sends each store's evidence to its store's verifier, and refuses
    /// that of a store not configured here.
    public func verifier(_ context: StoreContext) throws -> any ReceiptVerifier {
        var verifiers: [String: any ReceiptVerifier] = [:]
        for (id, plugin) in configured { verifiers[id] = try plugin.verifier(context) }
        return Routing(verifiers: verifiers)
    }

    /// The reason a store's evidence is refused where it is not configured.
    public static func notConfigured(_ store: String) -> String { "\(store)_not_configured" }

    struct Routing: ReceiptVerifier {
        let verifiers: [String: any ReceiptVerifier]

        func verify(_ submission: Submission) async -> VerificationOutcome {
            let store = submission.evidence.storeEvidence.store
            guard let verifier = verifiers[store] else {
                return .rejected(reason: StoreRegistry.notConfigured(store))
            }
            return await verifier.verify(submission)
        }
    }
}
