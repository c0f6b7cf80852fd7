import CoreMetrics
import PipelineCore
import Synchronization

/// Revenue counters by app, store and currency: what the revenue ledger committed, as
/// Prometheus adds it up (`increase(iap_revenue_paid_minor_units_total[1d])` per currency).
/// Amounts are minor units of the `currency` label; never summed across currencies.
///
/// The labels stay bounded: `app` by the apps file (``appLabel(_:)``), `store` by the store
/// ids (a lowercase word of at most 32, as the intake takes them), `currency` by ISO 4217
/// (three capitals; anything else counts as `XXX`, ISO's "no currency").
extension PipelineMetrics {
    public enum RevenueFigure: Sendable, CaseIterable {
        case payments, paid, givenBack, proceeds

        var name: String {
            switch self {
            case .payments: MetricName.revenuePayments
            case .paid: MetricName.revenuePaid
            case .givenBack: MetricName.revenueGivenBack
            case .proceeds: MetricName.revenueProceeds
            }
        }
    }

    /// The four revenue counters of one app, store and currency.
    public struct RevenueCounterSet: Sendable {
        public let payments: Counter
        public let paid: Counter
        public let givenBack: Counter
        public let proceeds: Counter
    }

    /// The four counters of `app` (nil: the default app), `store` and `currency`, made
    /// together (each at 0 from the key's first entry, so `increase()` and the refund share
    /// have a first sample) and kept by their labels: the fulfiller asks for them for every
    /// committed entry, one lookup where four handles' keys cost ~5 % of its CPU.
    public static func revenueCounters(app: String?, store: String, currency: String) -> RevenueCounterSet {
        let store =
            (1...32).contains(store.utf8.count) && store.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F })
            ? store : "other"
        let currency = CurrencyUnits.isCode(currency) ? currency : "XXX"
        let key = RevenueLabels(app: appLabel(app), store: store, currency: currency)
        if let known = revenueCountersByLabels.withLock({ $0[key] }) { return known }
        func make(_ figure: RevenueFigure) -> Counter {
            counter(figure.name, app: app, [("store", store), ("currency", currency)])
        }
        let made = RevenueCounterSet(
            payments: make(.payments), paid: make(.paid), givenBack: make(.givenBack), proceeds: make(.proceeds))
        revenueCountersByLabels.withLock { $0[key] = made }
        return made
    }

    /// Bounded as the labels are (apps file, store ids, ISO 4217).
    private static let revenueCountersByLabels = Mutex<[RevenueLabels: RevenueCounterSet]>([:])

    private struct RevenueLabels: Hashable {
        let app: String
        let store: String
        let currency: String
    }
}
