import Fulfiller
import GooglePlay
import HTTPClient
import Logging
import PipelineCore
import ServiceLifecycle
import Store
import StorePlugins

/// What the fulfiller runs for Google Play, composed here once for `iap fulfiller` and
/// `iap up`: the voided purchases' poll and the answers to Google's chargeback reviews (the
/// acknowledgements credited Play purchases owe are store confirmations, paid by
/// ``StoreConfirmer`` as every plug-in store's). They read and write Google's own tables,
/// which its plug-in, holding no database, cannot reach; they move into its
/// ``StorePlugin/services(_:)`` once those tables fold into the stores' (issue 27).
extension PluginStores {
    public struct GooglePlayJobs: Sendable {
        /// Answers to chargeback reviews; nil: none (tests answer them on their clock).
        public var refundReviews: GoogleRefundReviewAnswerer.Configuration? = .init()
        /// Every how long voided purchases are read; nil: never (tests read them themselves).
        public var voidedInterval: Duration? = .seconds(900)
        /// Whether the poll and the answers run in one process at a time (the database's
        /// leadership); false where one process runs every stage.
        public var elected = true

        public init() {}
    }

    /// Google's jobs over `httpClient` (shared, not owned); none when Google in `stores` has
    /// no service account.
    public static func googlePlayServices(
        _ stores: StoreRegistry, jobs: GooglePlayJobs, database: any SQLDatabase, httpClient: CurlHTTPClient,
        catalog: Catalog, logger: Logger
    ) -> [any Service] {
        guard let google = (stores.configured[GooglePlayStore.id] as? GooglePlayStore)?.setup else { return [] }
        func client() -> GooglePlayClient {
            google.client(httpClient: httpClient, budgets: MeteredCallBudgets.shared(database))
        }
        func leadership(_ name: String) -> any Leadership {
            jobs.elected ? database.leadership(of: name) : AlwaysLeader()
        }
        var services: [any Service] = []
        if let reviews = jobs.refundReviews {
            services.append(
                GoogleRefundReviewAnswerer(
                    client: client(), store: GoogleRefundReviewStore(database), configuration: reviews,
                    leadership: leadership("google-refund-reviews"), logger: logger))
        }
        if let interval = jobs.voidedInterval {
            services.append(
                GoogleVoidedPoller(
                    client: client(), store: GoogleVoidedStore(database), packageNames: google.packageNames,
                    catalog: catalog, interval: interval, leadership: leadership("google-voided"), logger: logger))
        }
        return services
    }
}
