import Foundation
import GRDB
import PipelineCore

// MARK: - Subscription checks: asking Apple around each expiry, because renewal notices are unreliable

/// Subscription checks: planned around each expiry, claimed when due, published to ask Apple.
///
/// A small store over the pipeline's one database writer: every method is one
/// transaction, run off the caller's thread (GRDB's own queue), so no caller blocks a
/// cooperative thread.
public struct SubscriptionStore: Sendable {
    let database: PipelineDatabase

    public init(_ database: PipelineDatabase) {
        self.database = database
    }
    /// Plans a check an hour (`lead`) before and an hour (`lag`) after the expiry of every
    /// auto-renewable entitlement expiring soon. Each expiry gets each check once (the
    /// schema's unique key), however often this runs; an expiry already past gets only
    /// its after-check (a scheduler that was down catches up).
    /// - Returns: how many checks were added.
    @discardableResult
    public func scheduleSubscriptionChecks(
        catalog: Catalog, lead: Duration, lag: Duration, horizon: Duration = .seconds(86_400), now: Date
    ) async throws -> Int {
        let names = Array(Set(catalog.products.filter { $0.kind == .autoRenewable }.compactMap(\.entitlement)))
        guard !names.isEmpty else { return 0 }
        return try await database.write { db in
            let expiring =
                try Entitlement
                .filter(names.contains(Entitlement.Columns.name))
                .filter(Column("original_transaction_id") != nil)
                .filter(Entitlement.Columns.expiresAt > now.addingTimeInterval(-lag.seconds - horizon.seconds))
                .filter(Entitlement.Columns.expiresAt <= now.addingTimeInterval(lead.seconds + horizon.seconds))
                .fetchAll(db)
            var added = 0
            for entitlement in expiring {
                guard let expiresAt = entitlement.expiresAt, let original = entitlement.originalTransactionID else {
                    continue
                }
                var phases: [(SubscriptionCheck.Phase, Date)] = [(.after, expiresAt.addingTimeInterval(lag.seconds))]
                if expiresAt > now { phases.insert((.before, expiresAt.addingTimeInterval(-lead.seconds)), at: 0) }
                for (phase, due) in phases {
                    try db.execute(
                        sql: """
                            INSERT INTO subscription_checks (
                                id, original_transaction_id, account_id, entitlement, expires_at, phase, due_at, status,
                                created_at, updated_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)
                            ON CONFLICT (original_transaction_id, expires_at, phase) DO NOTHING
                            """,
                        arguments: [
                            TimeOrderedID.make(), original, entitlement.accountID, entitlement.name,
                            expiresAt,
                            phase, due, now, now,
                        ])
                    added += db.changesCount
                }
            }
            return added
        }
    }

    /// Takes the checks that are due (and those whose publish was not confirmed), marks
    /// them `checking`, and returns the messages that ask Apple. An after-check whose
    /// subscription has renewed since is closed without asking.
    public func claimDueSubscriptionChecks(now: Date, limit: Int) async throws -> [SubscriptionCheckDetails] {
        try await database.write { db in
            let due =
                try SubscriptionCheck
                .filter(
                    (SubscriptionCheck.Columns.status == SubscriptionCheck.Status.scheduled
                        && SubscriptionCheck.Columns.dueAt <= now)
                        || (SubscriptionCheck.Columns.status == SubscriptionCheck.Status.checking
                            && SubscriptionCheck.Columns.publishedAt == nil)
                )
                .order(SubscriptionCheck.Columns.dueAt).limit(limit).fetchAll(db)
            var claimed: [SubscriptionCheckDetails] = []
            for var check in due {
                check.updatedAt = now
                let current = try Entitlement.fetchOne(
                    db, key: ["account_id": check.accountID, "name": check.entitlement])
                guard let end = current?.expiresAt, end <= check.expiresAt else {
                    // Renewed (or made permanent, or gone) since it was planned: nothing to ask.
                    check.status = .done
                    check.outcome = current == nil ? "unchanged" : "renewed"
                    try check.update(db)
                    continue
                }
                check.status = .checking
                let receipt = try Self.latestLegacyReceipt(originalTransactionID: check.originalTransactionID, db)
                check.receiptID = receipt?.id
                try check.update(db)
                claimed.append(Self.details(check, receiptData: receipt?.payload))
            }
            return claimed
        }
    }

    /// The broker confirmed these checks' messages.
    public func markSubscriptionChecksPublished(_ ids: [String], at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { db in
            try SubscriptionCheck.filter(ids: ids).updateAll(db, SubscriptionCheck.Columns.publishedAt.set(to: now))
        }
    }

    /// Every check of a subscription, oldest expiry first (for operators and tests).
    public func subscriptionChecks(originalTransactionID: String) async throws -> [SubscriptionCheckDetails] {
        try await database.read { db in
            try SubscriptionCheck.filter(SubscriptionCheck.Columns.originalTransactionID == originalTransactionID)
                .order(Column("expires_at"), Column("phase").desc).fetchAll(db)
                .map { Self.details($0, receiptData: nil) }
        }
    }

    /// The newest legacy receipt that carried a transaction of the subscription: what
    /// `verifyReceipt` is asked again (its answer lists the renewals since).
    private static func latestLegacyReceipt(originalTransactionID: String, _ db: Database) throws -> Receipt? {
        try Receipt.fetchOne(
            db,
            sql: """
                SELECT r.* FROM receipts r
                JOIN receipt_transactions rt ON rt.receipt_id = r.id
                JOIN apple_transactions a ON a.transaction_id = rt.transaction_id
                WHERE a.original_transaction_id = ? AND r.kind = 'legacy'
                ORDER BY r.created_at DESC LIMIT 1
                """,
            arguments: [originalTransactionID])
    }

    private static func details(_ check: SubscriptionCheck, receiptData: String?) -> SubscriptionCheckDetails {
        SubscriptionCheckDetails(
            checkID: check.id, originalTransactionID: check.originalTransactionID, accountID: check.accountID,
            entitlement: check.entitlement, expiresAt: check.expiresAt, phase: check.phase.rawValue,
            dueAt: check.dueAt, status: check.status.rawValue, outcome: check.outcome, reason: check.reason,
            submission: Submission(
                id: check.id, accountID: check.accountID,
                evidence: .subscriptionCheck(
                    originalTransactionID: check.originalTransactionID, latestReceipt: receiptData),
                submittedAt: check.dueAt))
    }
}
