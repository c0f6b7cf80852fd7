import Observability
import Settlement

/// The revenue counters (``PipelineMetrics/revenue(_:app:store:currency:)``), told each
/// committed transaction's revenue entries: payments and what they paid and earn; what
/// take-backs gave back. Counters only grow, so a reversal of a refund counts as paid again.
public enum RevenueCounters {
    @Sendable public static func count(_ entries: [RevenueEntry]) {
        for entry in entries {
            let app = entry.app.isEmpty ? nil : entry.app
            // Every figure of the key exists from its first entry, at 0 until it moves, so that
            // increase() and the refund share have a first sample.
            for figure in PipelineMetrics.RevenueFigure.allCases {
                _ = PipelineMetrics.revenue(figure, app: app, store: entry.store, currency: entry.currency)
            }
            func add(_ figure: PipelineMetrics.RevenueFigure, _ amount: Int64) {
                guard amount > 0 else { return }
                PipelineMetrics.revenue(figure, app: app, store: entry.store, currency: entry.currency)
                    .increment(by: amount)
            }
            switch entry.kind {
            case .purchase, .renewal:
                add(.payments, 1)
                add(.paid, entry.gross)
                add(.proceeds, entry.proceeds)
            case .refund, .revocation:
                add(.givenBack, -entry.gross)
            case .reversal:
                add(.paid, entry.gross)
            }
        }
    }
}
