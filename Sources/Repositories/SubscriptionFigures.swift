import Database
import Foundation
import PipelineCore
import Settlement

/// Subscriptions as a business reads them, computed from the entitlements and the revenue
/// ledger (never kept apart): who holds a subscription now and what it brings in a month;
/// which ended. The period's movements (started, free trials, renewed, trials converted) are
/// `revenue_days`' (``RevenueDay``).
public struct SubscriptionFigures: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// The subscriptions of one app, store, product and currency that are active now.
    public struct Active: Hashable, Sendable {
        public var app: String
        public var store: String
        public var productID: String
        public var currency: String
        /// Subscriptions whose access has not ended.
        public var subscribers: Int
        /// Of them, in a free trial (their current period cost nothing).
        public var inTrial: Int
        /// Of them, in a grace period: their last paid period has ended and the store, still
        /// trying to bill, keeps their access (Apple's billing grace period, Google's grace).
        public var inGrace: Int
        /// Monthly recurring revenue: each current period's price, gross, scaled to a month of
        /// 30.44 days (a year's twelfth), rounded toward zero, in minor units.
        public var monthlyRecurringRevenue: Int64
    }

    /// Active subscriptions now: each entitlement unexpired whose subscription's latest period
    /// is on the revenue ledger, by that period's app, store, product and currency.
    public func active(now: Date, app: String? = nil) async throws -> [Active] {
        try await database.snapshot { db in
            let seconds =
                db.dialect == .sqlite
                ? "CAST((julianday(t.expires_date) - julianday(t.purchase_date)) * 86400 AS INTEGER)"
                : "CAST(EXTRACT(EPOCH FROM t.expires_date - t.purchase_date) AS BIGINT)"
            let arguments: SQLArguments = [now, now] + (app.map { [$0] } ?? [])
            return try await db.rows(
                """
                SELECT r.app, r.store, r.product_id, r.currency, COUNT(*) AS subscribers,
                  SUM(CASE WHEN r.gross = 0 THEN 1 ELSE 0 END) AS in_trial,
                  SUM(CASE WHEN t.expires_date <= ? THEN 1 ELSE 0 END) AS in_grace,
                  CAST(SUM(COALESCE(r.monthly_recurring, CASE WHEN \(seconds) > 0 THEN r.gross * \(RevenueEntry.month) / \(seconds) ELSE 0 END)) AS BIGINT) AS mrr
                FROM entitlements e
                JOIN store_transactions t ON t.transaction_id = (
                  SELECT transaction_id FROM store_transactions
                  WHERE original_transaction_id = e.original_transaction_id ORDER BY created_at DESC LIMIT 1)
                JOIN revenue_entries r ON r.transaction_id = t.transaction_id AND r.kind IN ('purchase', 'renewal')
                WHERE e.expires_at > ? AND e.original_transaction_id IS NOT NULL AND r.subscription\
                \(app == nil ? "" : " AND r.app = ?")
                GROUP BY r.app, r.store, r.product_id, r.currency ORDER BY r.app, r.store, r.product_id, r.currency
                """, arguments
            ).map { row in
                Active(
                    app: try row.get("app"), store: try row.get("store"), productID: try row.get("product_id"),
                    currency: try row.get("currency"), subscribers: try row.get("subscribers"),
                    inTrial: try row.get("in_trial"), inGrace: try row.get("in_grace"),
                    monthlyRecurringRevenue: try row.get("mrr"))
            }
        }
    }

    /// Subscriptions whose access ended in `since..<until` (and before `now`) without a later
    /// period: churned, by entitlement, with the ones that a refund or revocation ended; of
    /// `app`'s accounts when given.
    public func ended(since: Date, until: Date, now: Date, app: AppScope? = nil) async throws -> [String: Int] {
        let owned = app?.sqlCondition(column: "account_id")
        return try await database.snapshot { db in
            let rows = try await db.rows(
                """
                SELECT name, COUNT(*) AS ended FROM entitlements
                WHERE expires_at >= ? AND expires_at < ? AND expires_at <= ? AND original_transaction_id IS NOT NULL\
                \(owned.map { " AND " + $0.sql } ?? "")
                GROUP BY name ORDER BY name
                """, [since, until, now] + (owned?.arguments ?? []))
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.get("name"), try $0.get("ended")) })
        }
    }

    /// How long a store goes on trying to bill after a renewal failed: Apple's billing retry
    /// lasts up to 60 days (Google's account hold, up to 30).
    public static let billingRetryDays: TimeInterval = 60

    /// Subscriptions in billing retry now, by store: their access has ended (no grace period,
    /// or it is over), within ``billingRetryDays``, and the store's latest word about them is
    /// that it is still trying to bill (Apple's `DID_FAIL_TO_RENEW` or `GRACE_PERIOD_EXPIRED`,
    /// Google's `SUBSCRIPTION_ON_HOLD`), not that it renewed or gave up (`EXPIRED`). Of `app`'s
    /// accounts when given.
    public func billingRetry(now: Date, app: AppScope? = nil) async throws -> [String: Int] {
        let owned = app?.sqlCondition(column: "e.account_id")
        return try await database.snapshot { db in
            let rows = try await db.rows(
                """
                SELECT n.store, COUNT(*) AS retrying FROM entitlements e
                JOIN store_notifications n ON n.id = (
                  SELECT id FROM store_notifications
                  WHERE original_transaction_id = e.original_transaction_id AND status = 'applied'
                  ORDER BY created_at DESC, signed_date DESC LIMIT 1)
                WHERE e.expires_at > ? AND e.expires_at <= ? AND e.original_transaction_id IS NOT NULL
                  AND n.type IN ('DID_FAIL_TO_RENEW', 'GRACE_PERIOD_EXPIRED', 'SUBSCRIPTION_ON_HOLD')\
                \(owned.map { " AND " + $0.sql } ?? "")
                GROUP BY n.store ORDER BY n.store
                """, [now.addingTimeInterval(-Self.billingRetryDays * 86_400), now] + (owned?.arguments ?? []))
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.get("store"), try $0.get("retrying")) })
        }
    }
}
