import CoreMetrics
import PipelineCore

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

    /// The counter of `figure` for `app` (nil: the default app), `store` and `currency`.
    public static func revenue(_ figure: RevenueFigure, app: String?, store: String, currency: String) -> Counter {
        let store =
            (1...32).contains(store.utf8.count) && store.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F })
            ? store : "other"
        let currency = CurrencyUnits.isCode(currency) ? currency : "XXX"
        return counter(figure.name, app: app, [("store", store), ("currency", currency)])
    }
}
