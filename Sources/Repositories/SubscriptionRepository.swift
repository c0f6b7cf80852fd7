import Database
import Foundation
import PipelineCore

// MARK: - Subscription checks: asking Apple around each expiry, because renewal notices are unreliable

/// Subscription checks: planned around each expiry, claimed when due, published to ask Apple.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct SubscriptionRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }
    /// Plans a check an hour (`lead`) before and an hour (`lag`) after the expiry of every
    /// auto-renewable entitlement expiring soon. Each expiry gets each check once (the
    /// schema's unique key), however often this runs; an expiry already past gets only
    /// its after-check (a scheduler that was down catches up). Each account's entitlements
    /// are judged by its app's catalog (``AppCatalogs``, issue 30).
    /// - Returns: how many checks were added.
    @discardableResult
    public func scheduleSubscriptionChecks(
        catalogs: AppCatalogs, lead: Duration, lag: Duration, horizon: Duration = .seconds(86_400), now: Date
    ) async throws -> Int {
        // Every app's renewing names narrow the read; each row is then judged by its own app.
        let names = Array(catalogs.all.reduce(into: Set<String>()) { $0.formUnion($1.renewingEntitlements) })
        guard !names.isEmpty else { return 0 }
        return try await database.transaction { db in
            let marks = names.map { _ in "?" }.joined(separator: ", ")
            let expiring = try await db.records(
                Entitlement.self,
                """
                SELECT * FROM entitlements
                WHERE name IN (\(marks)) AND original_transaction_id IS NOT NULL AND expires_at > ? AND expires_at <= ?
                """,
                names
                    + [
                        now.addingTimeInterval(-lag.seconds - horizon.seconds),
                        now.addingTimeInterval(lead.seconds + horizon.seconds),
                    ])
            var added = 0
            for entitlement in expiring {
                guard let expiresAt = entitlement.expiresAt, let original = entitlement.originalTransactionID,
                    catalogs.renews(entitlement.name, forAccount: entitlement.accountID)
                else { continue }
                var phases: [(SubscriptionCheck.Phase, Date)] = [(.after, expiresAt.addingTimeInterval(lag.seconds))]
                if expiresAt > now { phases.insert((.before, expiresAt.addingTimeInterval(-lead.seconds)), at: 0) }
                for (phase, due) in phases {
                    added += try await db.execute(
                        """
                        INSERT INTO subscription_checks (
                            id, original_transaction_id, account_id, entitlement, expires_at, phase, due_at, status,
                            created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)
                        ON CONFLICT (original_transaction_id, expires_at, phase) DO NOTHING
                        """,
                        [
                            TimeOrderedID.make(), original, entitlement.accountID, entitlement.name, expiresAt,
                            phase.rawValue, due, now, now,
                        ])
                }
            }
            return added
        }
    }

    /// ``scheduleSubscriptionChecks(catalogs:lead:lag:horizon:now:)`` with one catalog for every account.
    @discardableResult
    public func scheduleSubscriptionChecks(
        catalog: Catalog, lead: Duration, lag: Duration, horizon: Duration = .seconds(86_400), now: Date
    ) async throws -> Int {
        try await scheduleSubscriptionChecks(
            catalogs: AppCatalogs(catalog), lead: lead, lag: lag, horizon: horizon, now: now)
    }

    /// Takes the checks that are due (and those whose publish was not confirmed), marks
    /// them `checking`, and returns the messages that ask Apple. An after-check whose
    /// subscription has renewed since is closed without asking.
    public func claimDueSubscriptionChecks(now: Date, limit: Int) async throws -> [SubscriptionCheckDetails] {
        try await database.transaction { db in
            // Two schedulers claiming at once (PostgreSQL) skip each other's rows.
            let skipLocked = db.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
            let due = try await db.records(
                SubscriptionCheck.self,
                """
                SELECT * FROM subscription_checks
                WHERE (status = 'scheduled' AND due_at <= ?) OR (status = 'checking' AND published_at IS NULL)
                ORDER BY due_at, id LIMIT ?\(skipLocked)
                """, [now, limit])
            var claimed: [SubscriptionCheckDetails] = []
            for var check in due {
                check.updatedAt = now
                let current = try await db.record(
                    Entitlement.self, "SELECT * FROM entitlements WHERE account_id = ? AND name = ?",
                    [check.accountID, check.entitlement])
                guard let end = current?.expiresAt, end <= check.expiresAt else {
                    // Renewed (or made permanent, or gone) since it was planned: nothing to ask.
                    check.status = .done
                    check.outcome = current == nil ? "unchanged" : "renewed"
                    try await db.update(check, in: "subscription_checks")
                    continue
                }
                check.status = .checking
                let receipt = try await Self.latestLegacyReceipt(originalTransactionID: check.originalTransactionID, db)
                check.receiptID = receipt?.id
                try await db.update(check, in: "subscription_checks")
                claimed.append(Self.details(check, receiptData: receipt?.payload))
            }
            return claimed
        }
    }

    /// The broker confirmed these checks' messages.
    public func markSubscriptionChecksPublished(_ ids: [String], at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await database.transaction { db in
            try await db.execute(
                "UPDATE subscription_checks SET published_at = ? WHERE id IN (?)", in: ids, before: [now])
        }
    }

    /// Every check of a subscription, oldest expiry first (for operators and tests).
    public func subscriptionChecks(originalTransactionID: String) async throws -> [SubscriptionCheckDetails] {
        try await database.snapshot { db in
            try await db.records(
                SubscriptionCheck.self,
                "SELECT * FROM subscription_checks WHERE original_transaction_id = ? ORDER BY expires_at, phase DESC",
                [originalTransactionID]
            ).map { Self.details($0, receiptData: nil) }
        }
    }

    /// The newest legacy receipt that carried a transaction of the subscription: what
    /// `verifyReceipt` is asked again (its answer lists the renewals since).
    private static func latestLegacyReceipt(originalTransactionID: String, _ db: any SQLSession) async throws
        -> Receipt?
    {
        try await db.record(
            Receipt.self,
            """
            SELECT r.* FROM receipts r
            JOIN receipt_transactions rt ON rt.receipt_id = r.id
            JOIN store_transactions a ON a.transaction_id = rt.transaction_id
            WHERE a.original_transaction_id = ? AND r.kind = 'legacy'
            ORDER BY r.created_at DESC LIMIT 1
            """, [originalTransactionID])
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
