import Observability
import Settlement

/// The revenue counters (``PipelineMetrics/revenueCounters(app:store:currency:)``), told each
/// committed transaction's revenue entries: payments and what they paid and earn; what
/// take-backs gave back. Counters only grow, so a reversal of a refund counts as paid again.
public enum RevenueCounters {
    @Sendable public static func count(_ entries: [RevenueEntry]) {
        for entry in entries {
            let counters = PipelineMetrics.revenueCounters(
                app: entry.app.isEmpty ? nil : entry.app, store: entry.store, currency: entry.currency)
            func add(_ counter: MetricCounter, _ amount: Int64) {
                if amount > 0 { counter.increment(by: amount) }
            }
            switch entry.kind {
            case .purchase, .renewal:
                add(counters.payments, 1)
                add(counters.paid, entry.gross)
                add(counters.proceeds, entry.proceeds)
            case .refund, .revocation:
                add(counters.givenBack, -entry.gross)
            case .reversal:
                add(counters.paid, entry.gross)
            }
        }
    }
}
