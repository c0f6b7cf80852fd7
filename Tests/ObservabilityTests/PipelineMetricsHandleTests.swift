import Testing

@testable import Observability

/// The stages count every message through handles found by their labels: one handle a
/// series, whichever way it is asked for, and a label outside its bounds folded into one
/// series (`other`, `XXX`), so that a stray value cannot add series.
struct PipelineMetricsHandleTests {
    @Test func revenueCountersAreOneSetASeriesOfFourHandles() {
        let set = PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "USD")
        let handles = [set.payments, set.paid, set.givenBack, set.proceeds]
        #expect(Set(handles.map(ObjectIdentifier.init)).count == 4)
        // Asked again: the same handles; another currency, store or app: others
        let again = PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "USD")
        #expect(zip(handles, [again.payments, again.paid, again.givenBack, again.proceeds]).allSatisfy { $0 === $1 })
        #expect(PipelineMetrics.revenueCounters(app: nil, store: "apple", currency: "EUR").paid !== set.paid)
        #expect(PipelineMetrics.revenueCounters(app: nil, store: "google_play", currency: "USD").paid !== set.paid)
        #expect(PipelineMetrics.revenueCounters(app: "stranger", store: "apple", currency: "USD").paid !== set.paid)
    }

    @Test func labelsOutsideTheirBoundsShareOneSeries() {
        let stray = PipelineMetrics.revenueCounters(app: "not-in-the-apps-file", store: "Bad Store!", currency: "usd")
        let other = PipelineMetrics.revenueCounters(app: "another-stranger", store: "x y", currency: "DOLLARS")
        #expect(stray.paid === other.paid)
        #expect(stray.paid === PipelineMetrics.revenueCounters(app: "third", store: "other", currency: "XXX").paid)
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
