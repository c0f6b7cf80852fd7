import CoreMetrics

extension PipelineMetrics {
    /// Why the intake refused a connection at accept.
    public enum ConnectionRefusal: String, Sendable {
        /// The client's address had `IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS` open already.
        case perAddress = "per_address"
        /// The intake had `IAP_HTTP_MAX_CONNECTIONS` open already.
        case total
    }

    /// A store's notification that proved no app and named no recorded purchase: dropped.
    public static func notificationsDropped(store: String) -> Counter {
        Counter(label: MetricName.notificationsDropped, dimensions: [("store", store)])
    }

    public static func connectionsRefused(_ refusal: ConnectionRefusal) -> Counter {
        switch refusal {
        case .perAddress: refusedPerAddress
        case .total: refusedTotal
        }
    }

    private static let refusedPerAddress = Counter(
        label: MetricName.connectionsRefused, dimensions: [("reason", "per_address")])
    private static let refusedTotal = Counter(label: MetricName.connectionsRefused, dimensions: [("reason", "total")])

    /// The intake's open connections, counted up at accept and down at close.
    public static let connectionsOpen = Meter(label: MetricName.connectionsOpen)
}
