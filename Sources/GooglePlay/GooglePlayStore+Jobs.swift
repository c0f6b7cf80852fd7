import Database
import PipelineCore
import ServiceLifecycle
import SettlementWriter
import StorePlugins

/// What Google Play's plug-in runs in the fulfiller besides paying its confirmations: the
/// voided purchases' poll and the answers to Google's chargeback reviews, each in one
/// process at a time (``StoreContext/leadership``), over the rows they keep in the pipeline's
/// database. Nothing without a service account.
extension GooglePlayStore {
    public struct Jobs: Sendable {
        /// Answers to chargeback reviews; nil: none (tests answer them on their clock).
        public var refundReviews: GoogleRefundReviewAnswerer.Configuration? = .init()
        /// Every how long voided purchases are read; nil: never (tests read them themselves).
        public var voidedInterval: Duration? = .seconds(900)

        public init() {}

        /// `IAP_GOOGLE_VOIDED_INTERVAL_SECONDS` (900, 60-86400) and the refund preference the
        /// answers state (`IAP_CONSUMPTION_REFUND_PREFERENCE`, as Apple's).
        public init(environment env: EnvironmentReader) throws(SettingError) {
            voidedInterval = .seconds(
                try env.int("IAP_GOOGLE_VOIDED_INTERVAL_SECONDS", default: 900, range: 60...86_400))
            refundReviews = .init(prefers: try env.prefersRefunds())
        }
    }

    public func services(_ context: StoreContext) -> [any Service] {
        guard let setup, let database = context.database else { return [] }
        let client = setup.client(httpClient: context.httpClient, budgets: context.budgets)
        var services: [any Service] = []
        if let reviews = jobs.refundReviews {
            services.append(
                GoogleRefundReviewAnswerer(
                    client: client, store: GoogleRefundReviewRepository(database), configuration: reviews,
                    app: context.app, leadership: context.leadership("google-refund-reviews"), logger: context.logger))
        }
        if let interval = jobs.voidedInterval {
            services.append(
                GoogleVoidedPoller(
                    client: client, store: GoogleVoidedRepository(database, app: context.app),
                    packageNames: setup.packageNames,
                    catalog: context.catalog, interval: interval, leadership: context.leadership("google-voided"),
                    logger: context.logger))
        }
        return services
    }
}
