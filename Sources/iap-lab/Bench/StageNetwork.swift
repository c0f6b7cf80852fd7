import Drills

/// Where a ``StagesPipeline``'s processes live on the network. By default every stage and
/// the services they call are on this machine's loopback; `iap-lab chaos --cluster` puts stages
/// in network namespaces of their own (test hosts on bridge `iap-br0`), so that they can be
/// partitioned, and then the services they reach (the stub store, the webhook receiver, the
/// relays to a loopback broker or database) listen on the bridge's address instead.
struct StageNetwork: Sendable {
    /// Where the host's own services listen for the stages.
    var hostAddress = "127.0.0.1"
    /// Stage name → the namespace it runs in; a stage not named here runs on the host.
    var namespaces: [String: NetworkNamespace] = [:]
    /// Settings that namespaced stages see in place of the pipeline's: a broker or database
    /// URL whose loopback host is replaced by a relay's address.
    var namespacedEnvironment: [String: String] = [:]

    static let loopback = StageNetwork()

    /// The address `stage` listens on, and is reached at.
    func address(of stage: String) -> String { namespaces[stage]?.address ?? "127.0.0.1" }

    /// The settings of `stage`'s own: its listening address (`IAP_HTTP_HOST` and
    /// `IAP_ADMIN_HOST`) and the relayed URLs, when it runs in a namespace.
    func environment(of stage: String) -> [String: String] {
        guard let namespace = namespaces[stage] else { return [:] }
        return namespacedEnvironment.merging([
            "IAP_HTTP_HOST": namespace.address, "IAP_ADMIN_HOST": namespace.address,
        ]) { $1 }
    }
}
