import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - Consumption requests: the player's consent, the ledger's facts, and our answers

/// What answering Apple's `CONSUMPTION_REQUEST`s reads and records.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own, so no caller blocks a cooperative
/// thread. The answer itself is ``ConsumptionAnswer``'s (module `Settlement`).
public struct ConsumptionRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// Records the player's consent (or its withdrawal); the account gets its row if it has none.
    public func recordConsent(accountID: String, consented: Bool, now: Date) async throws -> ConsumptionConsent {
        try await database.transaction { db in
            try await db.execute(
                "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", [accountID, now])
            try await db.execute(
                """
                INSERT INTO consumption_consents (account_id, status, recorded_at) VALUES (?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET status = excluded.status, recorded_at = excluded.recorded_at
                """, [accountID, consented ? "granted" : "withdrawn", now])
            return ConsumptionConsent(accountID: accountID, consented: consented, recordedAt: now)
        }
    }

    /// The player's consent as last recorded; nil if never.
    public func consent(accountID: String) async throws -> ConsumptionConsent? {
        try await database.snapshot { db in try await Self.consent(accountID, db) }
    }

    static func consent(_ accountID: String, _ db: any SQLSession) async throws -> ConsumptionConsent? {
        guard
            let row = try await db.row(
                "SELECT status, recorded_at FROM consumption_consents WHERE account_id = ?", [accountID])
        else { return nil }
        return ConsumptionConsent(
            accountID: accountID, consented: try row.get("status", as: String.self) == "granted",
            recordedAt: try row.get("recorded_at"))
    }

    /// Consumption requests received since `since` and applied, still to answer: none
    /// sent or withheld, and fewer than `maxAttempts` failures, of `app`'s accounts. Oldest first.
    public func pending(since: Date, maxAttempts: Int, limit: Int, app: AppScope = .single) async throws
        -> [ConsumptionRequest]
    {
        let scope = app.jobCondition(appColumn: "n.app")
        // One query over the window only: the partial index on CONSUMPTION_REQUESTs by time
        // keeps it small however many notifications the store holds.
        return try await database.snapshot { db in
            try await db.records(
                NotificationRow.self,
                """
                SELECT n.* FROM store_notifications n
                WHERE n.type = ? AND n.notification_uuid IS NOT NULL AND n.transaction_id IS NOT NULL
                    AND n.created_at >= ? AND \(scope.sql)
                    AND NOT EXISTS (
                        SELECT 1 FROM consumption_answers a WHERE a.notification_id = n.id
                            AND (a.status IN ('sent', 'withheld') OR a.attempts >= ?))
                ORDER BY n.created_at, n.id LIMIT ?
                """,
                ([StoreNotification.Kind.consumptionRequest.rawValue, since] as SQLArguments) + scope.arguments
                    + [maxAttempts, limit]
            ).compactMap(NotificationRepository.consumptionRequest)
        }
    }

    /// What the ledger knows about `request`: consent, what the transaction credited, the
    /// balance of that currency now, and the account's first day.
    public func facts(for request: ConsumptionRequest) async throws -> ConsumptionAnswer.Facts {
        try await database.snapshot { db in
            let transaction = try await db.row(
                "SELECT account_id, entitlement FROM store_transactions WHERE transaction_id = ?",
                [request.transactionID ?? ""])
            let credited: String? = try transaction?.get("account_id")
            let accountID = credited ?? request.accountID
            var facts = ConsumptionAnswer.Facts(consented: nil, delivered: credited != nil)
            guard let accountID else { return facts }
            facts.consented = try await Self.consent(accountID, db)?.consented
            facts.accountSince = try await db.row("SELECT created_at FROM accounts WHERE id = ?", [accountID])?
                .get("created_at", as: Date.self)
            if let purchase = try await db.row(
                """
                SELECT currency, amount FROM ledger_entries WHERE transaction_id = ? AND kind = 'purchase'
                """, [request.transactionID ?? ""])
            {
                let money = Money(currency: try purchase.get("currency"), amount: try purchase.get("amount"))
                facts.credited = money
                facts.balance =
                    try await db.value(
                        "SELECT amount FROM balances WHERE account_id = ? AND currency = ?",
                        [accountID, money.currency])
                    ?? 0
            }
            return facts
        }
    }

    /// Records an answer (or a failed attempt at one), replacing the previous attempt's.
    public func record(_ answer: ConsumptionAnswerRecord, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO consumption_answers (
                    notification_id, transaction_id, account_id, status, reason, body, apple_status, tenure_days,
                    attempts, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (notification_id) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                    body = excluded.body, apple_status = excluded.apple_status, tenure_days = excluded.tenure_days,
                    attempts = excluded.attempts, updated_at = excluded.updated_at
                """,
                [
                    answer.notificationID, answer.transactionID, answer.accountID, answer.status.rawValue,
                    answer.reason, answer.body, answer.appleStatus, answer.tenureDays, answer.attempts, now,
                ])
        }
    }

    /// The answer recorded for a notification, if any.
    public func answer(notificationID: String) async throws -> ConsumptionAnswerRecord? {
        try await database.snapshot { db in
            guard
                let row = try await db.row(
                    """
                    SELECT notification_id, transaction_id, account_id, status, reason, body, apple_status,
                        tenure_days, attempts
                    FROM consumption_answers WHERE notification_id = ?
                    """, [notificationID])
            else { return nil }
            return ConsumptionAnswerRecord(
                notificationID: try row.get("notification_id"), transactionID: try row.get("transaction_id"),
                accountID: try row.get("account_id"),
                status: ConsumptionAnswerRecord.Status(rawValue: try row.get("status")) ?? .failed,
                reason: try row.get("reason"), body: try row.get("body"), appleStatus: try row.get("apple_status"),
                tenureDays: try row.get("tenure_days"), attempts: try row.get("attempts"))
        }
    }
}
