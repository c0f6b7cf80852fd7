import Database
import Foundation
import Logging
import Metrics
import Observability
import PipelineCore
import Repositories
import ServiceLifecycle
import SettlementWriter
import StorePlugins

/// Pays what stores are owed once their purchases are credited (Huawei's consumption
/// confirmation, Google Play's acknowledgement or consumption, the app account token Apple is
/// told for a StoreKit 2 purchase that carried none), from the rows the credit's own
/// transaction wrote (``ConfirmationRepository``), through each store's
/// ``StorePlugin/confirm(_:transactionID:context:)``, until the store says it is done.
///
/// Failures the store may recover from are tried again with backoff (`initialBackoff`,
/// doubled, at most an hour); one it refuses is given up on and left for an operator
/// (`status = 'failed'`). Those given up on, and those still owed after `overdueAfter` (Google
/// refunds a Play purchase left unacknowledged for three days), are counted by store in
/// `iap_store_confirmations_overdue`. Any number of fulfillers may run it: a claim leases its rows.
public struct StoreConfirmer: Service {
    public struct Configuration: Sendable {
        /// How often the table is looked at when nothing is due.
        public var interval: Duration = .seconds(1)
        public var initialBackoff: TimeInterval = 5
        public var batch = 32
        /// When a confirmation still owed is an alarm.
        public var overdueAfter: TimeInterval = 2 * 86_400

        public init() {}
    }

    /// What one app's confirmations are paid with: its stores, over a context with its
    /// catalog and call budgets.
    public struct App: Sendable {
        let stores: [String: any StorePlugin]
        public let context: StoreContext

        public init(stores: StoreRegistry, context: StoreContext) {
            // A store that cannot talk to its store here (Google without a service account) is
            // left to a process that can.
            self.stores = stores.configured.filter { $0.value.runsInFulfiller }
            self.context = context
        }
    }

    let store: ConfirmationRepository
    /// Every app served, by its id as rows name it (`""`: the default app).
    let apps: [String: App]
    /// The default app's context, for what is not one app's (the loop's own logs).
    let context: StoreContext
    let configuration: Configuration
    let now: @Sendable () -> Date
    /// The wait on a database that cannot take the work: one line each way, not one a turn.
    let pause: StagePause

    /// - Parameters:
    ///   - stores: The default app's stores (the only app's, with the single-app settings).
    ///   - others: Every other app's (issue 30), by app id: each row is paid by its own app's.
    public init(
        store: ConfirmationRepository, stores: StoreRegistry, context: StoreContext, others: [String: App] = [:],
        configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.apps = others.merging(["": App(stores: stores, context: context)]) { _, own in own }
        self.context = context
        self.configuration = configuration
        self.now = now
        self.pause = StagePause(stage: "store_confirmer", logger: context.logger)
    }

    public func run() async throws {
        let ids = Set(apps.values.flatMap(\.stores.keys)).sorted()
        context.logger.info("confirming plug-in stores' purchases", metadata: ["stores": "\(ids)"])
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var worked = false
            do {
                var due: [ConfirmationRepository.Confirmation] = []
                for (app, served) in apps.sorted(by: { $0.key < $1.key }) where !served.stores.isEmpty {
                    due += try await store.claimDue(
                        stores: served.stores.keys.sorted(), app: app.isEmpty ? nil : app, now: now(),
                        limit: configuration.batch)
                }
                worked = !due.isEmpty
                await withTaskGroup(of: Void.self) { group in
                    for confirmation in due { group.addTask { await confirm(confirmation) } }
                }
                let overdue = try await store.overdue(olderThan: configuration.overdueAfter, now: now())
                for id in ids {
                    Gauge(label: MetricName.storeConfirmationsOverdue, dimensions: [("store", id)])
                        .record(overdue[id] ?? 0)
                }
                pause.succeeded()
            } catch {
                if let reason = SQLError.outage(error) {
                    pause.failed(reason: reason, error: error)
                } else {
                    context.logger.warning("store confirmations: the database failed", metadata: ["error": "\(error)"])
                }
            }
            if !worked {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
            }
        }
    }

    /// One call to the store and its outcome recorded.
    func confirm(_ confirmation: ConfirmationRepository.Confirmation) async {
        guard let app = apps[confirmation.app ?? ""], let plugin = app.stores[confirmation.store] else { return }
        let context = app.context
        let outcome = await plugin.confirm(
            confirmation.payload, transactionID: confirmation.transactionID, context: context)
        var metadata: Logger.Metadata = [
            "store": "\(confirmation.store)", "transaction_id": "\(confirmation.transactionID)",
            "receipt_id": "\(confirmation.receiptID ?? "-")", "attempts": "\(confirmation.attempts)",
        ]
        if let id = confirmation.app { metadata["app"] = "\(id)" }
        do {
            switch outcome {
            case .done:
                try await store.markDone(confirmation, now: now())
                context.logger.info("store purchase confirmed", metadata: metadata)
            case .transient(let reason, let retryAfter):
                let backoff = Backoff(base: .seconds(configuration.initialBackoff), cap: .seconds(3600))
                    .delay(afterFailures: confirmation.attempts)
                let wait = max(backoff, retryAfter ?? .zero)
                context.logger.warning(
                    "store confirmation failed; trying again", metadata: metadata.merging(["error": "\(reason)"]) { $1 }
                )
                try await store.markFailed(
                    confirmation, error: reason, retryAt: now().addingTimeInterval(wait.seconds))
            case .failed(let reason):
                context.logger.error(
                    "store confirmation refused; given up", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
                try await store.markFailed(confirmation, error: reason, retryAt: nil)
            }
        } catch {
            // The database failed after the store answered: the lease runs out and it is asked again.
            context.logger.warning("store confirmation not recorded", metadata: ["error": "\(error)"])
        }
    }
}
