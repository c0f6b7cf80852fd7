import Database
import Foundation
import Logging
import PipelineCore
import ServiceLifecycle
import SettlementWriter

/// Reads Google Play's voided purchases (refunds and chargebacks) and debits each once, as
/// an Apple refund is debited. Google sends no notice of most of them; it keeps 30 days of
/// its list, so each app's list is read from where the last complete read ended (an hour
/// earlier, as Google may list late), never further back than 30 days. Runs every
/// `interval` in the one fulfiller holding `leadership`.
public struct GoogleVoidedPoller: Service {
    public struct Summary: Hashable, Sendable {
        public var listed = 0
        public var debited = 0
        public var alreadyDebited = 0
        public var unknown = 0
        /// Of those listed, refunds of some units of a multi-unit purchase (each taking back its units).
        public var partial = 0
    }

    let client: GooglePlayClient
    let store: GoogleVoidedRepository
    let packageNames: [String]
    let catalog: Catalog
    let interval: Duration
    let leadership: any Leadership
    let logger: Logger
    let now: @Sendable () -> Date

    public init(
        client: GooglePlayClient, store: GoogleVoidedRepository, packageNames: Set<String>, catalog: Catalog,
        interval: Duration = .seconds(900), leadership: any Leadership = AlwaysLeader(), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.store = store
        self.packageNames = packageNames.sorted()
        self.catalog = catalog
        self.interval = interval
        self.leadership = leadership
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        guard !packageNames.isEmpty else {
            logger.notice("IAP_GOOGLE_PACKAGE_NAMES is not set: Google Play's voided purchases are not read")
            // A service that returned would stop its whole group: wait for the shutdown instead.
            try? await gracefulShutdown()
            return
        }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if await leadership.isLeader() {
                do {
                    let summary = try await poll()
                    logger.debug("Google Play voided purchases read", metadata: ["debited": "\(summary.debited)"])
                } catch {
                    logger.error(
                        "Google Play voided purchases: the read failed; again at the next pass",
                        metadata: ["error": "\(error)"])
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        await leadership.resign()
    }

    /// How far back Google keeps its list.
    static let retention: TimeInterval = 30 * 86_400
    /// How late Google may list a voided purchase.
    static let overlap: TimeInterval = 3600

    /// One read of every app's list; the watermark of an app moves only after its whole list
    /// was read and applied.
    @discardableResult
    public func poll() async throws -> Summary {
        var summary = Summary()
        for package in packageNames {
            let end = now()
            let earliest = end.addingTimeInterval(-Self.retention + 60)
            let start = max(
                earliest, (try await store.polledUntil(package))?.addingTimeInterval(-Self.overlap) ?? earliest)
            var pageToken: String?
            repeat {
                let page = try await client.voidedPurchases(
                    packageName: package, start: start, end: end, pageToken: pageToken)
                for voided in page.voidedPurchases {
                    summary.listed += 1
                    // A quantity-based partial refund takes back its units, not the order.
                    if voided.isPartial { summary.partial += 1 }
                    let at = voided.voidedTimeMillis.flatMap(Int64.init).map {
                        Date(timeIntervalSince1970: Double($0) / 1000)
                    }
                    let outcome = try await store.takeBack(
                        transactionID: GooglePlayVerifier.transactionID(
                            order: voided.orderId, token: voided.purchaseToken),
                        units: try await unitsVoided(voided, package: package), voidedAt: at ?? end, catalog: catalog,
                        now: now())
                    switch outcome {
                    case .debited:
                        summary.debited += 1
                        logger.info(
                            "Google Play voided purchase debited",
                            metadata: [
                                "order_id": "\(voided.orderId ?? "-")", "reason": "\(voided.voidedReason ?? -1)",
                            ])
                    case .alreadyDebited: summary.alreadyDebited += 1
                    case .unknown: summary.unknown += 1
                    }
                }
                pageToken = page.tokenPagination?.nextPageToken
            } while pageToken != nil
            try await store.setPolledUntil(end, for: package)
        }
        return summary
    }

    /// The units of a partial refund's order voided so far, all refunds of it together: the
    /// engine takes that share less what earlier refunds took. An entry of the list counts
    /// only its own refund's units, so the purchase is read back (its `refundableQuantity`);
    /// Google's count, if the purchase does not say. Nil for a whole order voided.
    func unitsVoided(_ voided: VoidedPurchase, package: String) async throws -> Int? {
        guard voided.isPartial else { return nil }
        let purchase = try await client.productPurchase(packageName: package, token: voided.purchaseToken)
        return GooglePlayVerifier.refundedUnits(purchase, productID: nil)?.refunded ?? voided.voidedQuantity
    }
}
