import Testing

@testable import Observability

/// The stages count every message through handles found by their labels: one handle a
/// series, whichever way it is asked for, and a label outside its bounds folded into one
/// series (`other`, `XXX`), so that a stray value cannot add series.
struct PipelineMetricsHandleTests {
    @Test func revenueCountersAreTheSameHandlesAsEachFigureAskedAlone() {
        let set = PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "USD")
        #expect(set.payments === PipelineMetrics.revenue(.payments, app: nil, store: "apple", currency: "USD"))
        #expect(set.paid === PipelineMetrics.revenue(.paid, app: nil, store: "apple", currency: "USD"))
        #expect(set.givenBack === PipelineMetrics.revenue(.givenBack, app: nil, store: "apple", currency: "USD"))
        #expect(set.proceeds === PipelineMetrics.revenue(.proceeds, app: nil, store: "apple", currency: "USD"))
        // Asked again: the same handles; another currency: others
        #expect(PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "USD").paid === set.paid)
        #expect(PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "EUR").paid !== set.paid)
        #expect(set.paid !== set.proceeds)
    }

    @Test func labelsOutsideTheirBoundsShareOneSeries() {
        let stray = PipelineMetrics.revenueCounters(app: "not-in-the-apps-file", store: "Bad Store!", currency: "usd")
        let other = PipelineMetrics.revenueCounters(app: "another-stranger", store: "x y", currency: "DOLLARS")
        #expect(stray.paid === other.paid)
        #expect(stray.paid === PipelineMetrics.revenue(.paid, app: "third", store: "other", currency: "XXX"))
        #expect(stray.paid !== PipelineMetrics.revenueCounters(app: nil, store: "other", currency: "XXX").paid)
    }

    @Test func appCountersAreOneHandleAnApp() {
        #expect(PipelineMetrics.credited(app: nil) === PipelineMetrics.credited(app: nil))
        #expect(PipelineMetrics.credited(app: "stranger") === PipelineMetrics.credited(app: "another"))
        let final = PipelineMetrics.webhooksFailed(app: nil, final: true)
        #expect(final !== PipelineMetrics.webhooksFailed(app: nil, final: false))
        #expect(final === PipelineMetrics.webhooksFailed(app: nil, final: true))
        #expect(PipelineMetrics.credited(app: nil) !== PipelineMetrics.webhooksDelivered(app: nil))
    }
}
