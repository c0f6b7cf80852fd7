import Database
import Foundation

// MARK: - Rejected notifications expire

extension NotificationRepository {
    /// Deletes up to `limit` notifications rejected (their signature or contents refused by
    /// the validator) before `cutoff`, in one transaction. Anyone may post to the
    /// notifications endpoint; this keeps junk that looked like a JWS from piling up.
    /// Rows something else refers to (never the case for a rejected one) are kept.
    ///
    /// - Returns: how many rows were deleted; a full `limit` means more may wait.
    public func pruneRejected(before cutoff: Date, limit: Int = 1000) async throws -> Int {
        try await database.transaction { db in
            try await db.execute(
                """
                DELETE FROM store_notifications WHERE id IN (
                    SELECT n.id FROM store_notifications n
                    WHERE n.status = 'rejected' AND n.updated_at < ?
                        AND NOT EXISTS (SELECT 1 FROM store_transactions t WHERE t.notification_id = n.id)
                        AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.notification_id = n.id)
                        AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.notification_id = n.id)
                    LIMIT ?)
                """, [cutoff, limit])
        }
    }
}
