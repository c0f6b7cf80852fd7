import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - A store's take-back of a purchase it names by its transaction id alone

extension SettlementRepository {
    /// What taking back a purchase did.
    public enum TakeBackOutcome: String, Hashable, Sendable {
        /// Debited now.
        case debited
        /// Debited before: nothing changed.
        case alreadyDebited = "already_debited"
        /// Never credited here (or by another app): nothing to take back.
        case unknown
    }

    /// Takes back the purchase a store cancelled, known by its transaction id (Google's
    /// voided purchases name their order): all of it, or `units` of it cancelled so far
    /// (quantity-based partial refunds, all of the order's together), less what earlier
    /// take-backs of it took, from the account credited, following the catalog's
    /// `negative_balance`. One transaction, locked on the transaction id, so that a push and
    /// a poll naming the same refund debit it once.
    ///
    /// Only a store's own word may call this: `cancelledAt` is the cancellation the store
    /// signed or that was read back from it with `app`'s own credentials (the engine refuses
    /// a take-back without one, and one of a purchase `app` did not record).
    public func takeBack(
        transactionID: String, units: Int? = nil, cancelledAt: Date, app: String, catalog: Catalog, now: Date
    ) async throws -> TakeBackOutcome {
        try await database.transaction { db in
            try await db.lock(["transaction:\(transactionID)"])
            return try await VerdictApplier.within(db, catalog: catalog, now: now) { applier -> TakeBackOutcome in
                guard var transaction = try await applier.recorded(transactionID, cancelledAt: cancelledAt) else {
                    return .unknown
                }
                transaction.refundedQuantity = units
                let decision = try await applier.settle(.takenBack(transaction, kind: .refund, cause: Cause(app: app)))
                return decision.reason == nil ? .debited : .alreadyDebited
            }
        }
    }
}
