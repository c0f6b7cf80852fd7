import Foundation
import Settlement

extension RevenueEntry {
    /// The columns a stored entry is read from (``init(row:)``).
    public static let columns = """
        app, store, account_id, transaction_id, original_transaction_id, product_id, kind, currency, gross, proceeds, \
        commission_bp, country, estimated, subscription, receipt_id, notification_id, step, tax, period_ends, \
        monthly_recurring
        """

    /// An entry as stored; nil for a kind this release does not know.
    public init?(row: SQLRow) throws {
        guard let kind = Kind(rawValue: try row.get("kind")) else { return nil }
        self.init(
            app: try row.get("app"), store: try row.get("store"), accountID: try row.get("account_id"),
            transactionID: try row.get("transaction_id"),
            originalTransactionID: try row.get("original_transaction_id"), productID: try row.get("product_id"),
            kind: kind, currency: try row.get("currency"), gross: try row.get("gross"),
            proceeds: try row.get("proceeds"), commissionBasisPoints: try row.get("commission_bp"),
            country: try row.get("country"), estimated: try row.get("estimated"),
            subscription: try row.get("subscription"), receiptID: try row.get("receipt_id"),
            notificationID: try row.get("notification_id"), step: try row.get("step"), tax: try row.get("tax"),
            periodEnds: try row.get("period_ends"), monthlyRecurring: try row.get("monthly_recurring"))
    }

    /// The columns an entry is written with (``values(at:)`` in the same order).
    public static let storedColumns = [
        "app", "store", "account_id", "transaction_id", "original_transaction_id", "product_id", "kind", "currency",
        "gross", "proceeds", "commission_bp", "country", "estimated", "subscription", "receipt_id", "notification_id",
        "step", "tax", "period_ends", "monthly_recurring", "created_at",
    ]

    /// The entry's values for ``storedColumns``, written at `stamp`.
    public func values(at stamp: SQLValue) -> [(any SQLConvertible)?] {
        [
            app, store, accountID, transactionID, originalTransactionID, productID, kind.rawValue, currency, gross,
            proceeds, commissionBasisPoints, country, estimated, subscription, receiptID, notificationID, step, tax,
            periodEnds, monthlyRecurring, stamp,
        ]
    }
}
