import Database
import Foundation

// MARK: - Audit: do the books balance?

/// Accounts, their ledger and balances: what an account holds, and the audit of the books.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct LedgerRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }
    /// Checks the invariants the pipeline promises, on one consistent snapshot:
    /// - every balance equals the sum of its ledger entries, and no ledger currency lacks
    ///   a balance row;
    /// - no Apple transaction has two ledger entries of one kind of credit (credited twice);
    /// - no Apple transaction has two debits (refunded or revoked twice);
    /// - every transaction refunded or revoked after it credited a currency has its debit;
    /// - every credited receipt credited something;
    /// - every credited, rejected or dead receipt has its notification;
    /// - every paid order names a transaction that credited the order's account.
    ///
    /// - Returns: what is wrong; empty when all is well.
    public func audit() async throws -> [AuditFinding] {
        try await database.snapshot { db in
            var findings: [AuditFinding] = []

            for row in try await db.rows(
                """
                SELECT b.account_id, b.currency, b.amount, COALESCE(l.total, 0) AS total
                FROM balances b
                LEFT JOIN (
                    SELECT account_id, currency, SUM(amount) AS total
                    FROM ledger_entries GROUP BY account_id, currency
                ) l ON l.account_id = b.account_id AND l.currency = b.currency
                WHERE b.amount <> COALESCE(l.total, 0)
                ORDER BY b.account_id, b.currency
                """)
            {
                let (account, currency, amount, total): (String, String, Int, Int) =
                    (try row.get("account_id"), try row.get("currency"), try row.get("amount"), try row.get("total"))
                findings.append(
                    AuditFinding(
                        kind: .balanceMismatch, accountID: account, currency: currency,
                        detail: "account \(account) has \(amount) \(currency) but its ledger sums to \(total)"))
            }

            for row in try await db.rows(
                """
                SELECT l.account_id, l.currency, SUM(l.amount) AS total
                FROM ledger_entries l
                WHERE NOT EXISTS (
                    SELECT 1 FROM balances b WHERE b.account_id = l.account_id AND b.currency = l.currency)
                GROUP BY l.account_id, l.currency
                ORDER BY l.account_id, l.currency
                """)
            {
                let (account, currency, total): (String, String, Int) =
                    (try row.get("account_id"), try row.get("currency"), try row.get("total"))
                findings.append(
                    AuditFinding(
                        kind: .ledgerWithoutBalance, accountID: account, currency: currency,
                        detail: "account \(account) has ledger entries summing to \(total) \(currency) but no balance"))
            }

            for row in try await db.rows(
                """
                SELECT transaction_id, kind, COUNT(*) AS entries, MIN(account_id) AS account,
                    \(db.dialect.concat("account_id", distinct: true)) AS accounts
                FROM ledger_entries
                WHERE transaction_id IS NOT NULL AND kind NOT IN ('refund', 'revoke', 'write_off')
                GROUP BY transaction_id, kind
                HAVING COUNT(*) > 1
                ORDER BY transaction_id
                """)
            {
                let (transaction, kind, entries, accounts): (String, String, Int, String) =
                    (
                        try row.get("transaction_id"), try row.get("kind"), try row.get("entries"),
                        try row.get("accounts")
                    )
                // The first account names the app an audit per app counts it under.
                findings.append(
                    AuditFinding(
                        kind: .transactionCreditedTwice, accountID: try row.get("account"), transactionID: transaction,
                        detail: "Apple transaction \(transaction) has \(entries) \(kind) entries (accounts \(accounts))"
                    ))
            }

            // Debits come in steps (a second partial refund): together they never take more
            // than the purchase gave, and all fall on one account.
            for row in try await db.rows(
                """
                SELECT d.transaction_id, COUNT(*) AS entries, -SUM(d.amount) AS debited,
                    COALESCE(MAX(p.amount), 0) AS credited, \(db.dialect.concat("d.kind")) AS kinds,
                    \(db.dialect.concat("d.account_id", distinct: true)) AS accounts, MIN(d.account_id) AS account
                FROM ledger_entries d
                LEFT JOIN ledger_entries p ON p.transaction_id = d.transaction_id AND p.kind = 'purchase'
                WHERE d.transaction_id IS NOT NULL AND d.kind IN ('refund', 'revoke')
                GROUP BY d.transaction_id
                HAVING -SUM(d.amount) > COALESCE(MAX(p.amount), 0)
                    OR COUNT(DISTINCT d.account_id) > 1
                ORDER BY d.transaction_id
                """)
            {
                let (transaction, entries, debited, credited, kinds, accounts):
                    (String, Int, Int, Int, String, String) =
                        (
                            try row.get("transaction_id"), try row.get("entries"), try row.get("debited"),
                            try row.get("credited"), try row.get("kinds"), try row.get("accounts")
                        )
                findings.append(
                    AuditFinding(
                        kind: .transactionRefundedTwice, accountID: try row.get("account"), transactionID: transaction,
                        detail:
                            "transaction \(transaction) has \(entries) debits (\(kinds); accounts \(accounts)) "
                            + "taking \(debited) of the \(credited) it credited"))
            }

            for row in try await db.rows(
                """
                SELECT a.transaction_id, a.state, p.account_id, p.currency, p.amount
                FROM store_transactions a
                JOIN ledger_entries p ON p.transaction_id = a.transaction_id AND p.kind = 'purchase'
                WHERE a.state IN ('refunded', 'revoked') AND NOT EXISTS (
                    SELECT 1 FROM ledger_entries d
                    WHERE d.transaction_id = a.transaction_id AND d.kind IN ('refund', 'revoke'))
                ORDER BY a.transaction_id
                """)
            {
                let (transaction, state, account, currency, amount): (String, String, String, String, Int) =
                    (
                        try row.get("transaction_id"), try row.get("state"), try row.get("account_id"),
                        try row.get("currency"), try row.get("amount")
                    )
                findings.append(
                    AuditFinding(
                        kind: .refundWithoutDebit, accountID: account, currency: currency, transactionID: transaction,
                        detail:
                            "Apple transaction \(transaction) is \(state) but the \(amount) \(currency) it credited "
                            + "to \(account) were never debited"))
            }

            for row in try await db.rows(
                """
                SELECT r.id, r.account_id FROM receipts r
                WHERE r.status = 'credited' AND NOT EXISTS (
                    SELECT 1 FROM receipt_transactions t WHERE t.receipt_id = r.id AND t.outcome = 'credited')
                ORDER BY r.id
                """)
            {
                let id: String = try row.get("id")
                findings.append(
                    AuditFinding(
                        kind: .creditedReceiptWithoutCredit, accountID: try row.get("account_id"), receiptID: id,
                        detail: "receipt \(id) is credited but no transaction of it credited anything"))
            }

            // A join, not NOT EXISTS: SQLite indexes the outbox for a join (by receipt and
            // type, for this statement only) but would read it whole per receipt for a
            // correlated subquery, as no index of its own covers `receipt.dead`.
            for row in try await db.rows(
                """
                SELECT r.id, r.status, r.account_id FROM receipts r
                LEFT JOIN notification_outbox o ON o.receipt_id = r.id AND o.type = 'receipt.' || r.status
                WHERE r.status IN ('credited', 'rejected', 'dead') AND o.id IS NULL
                ORDER BY r.id
                """)
            {
                let (id, status): (String, String) = (try row.get("id"), try row.get("status"))
                findings.append(
                    AuditFinding(
                        kind: .finalReceiptWithoutNotification, accountID: try row.get("account_id"), receiptID: id,
                        detail: "receipt \(id) is \(status) but has no receipt.\(status) notification"))
            }

            for row in try await db.rows(
                """
                SELECT o.id, o.account_id, o.transaction_id FROM orders o
                WHERE o.status IN ('fulfilled', 'mismatched') AND NOT EXISTS (
                    SELECT 1 FROM store_transactions a
                    WHERE a.transaction_id = o.transaction_id AND a.account_id = o.account_id
                        AND a.order_id = o.id)
                ORDER BY o.id
                """)
            {
                let (id, account, transaction): (String, String, String?) =
                    (try row.get("id"), try row.get("account_id"), try row.get("transaction_id"))
                findings.append(
                    AuditFinding(
                        kind: .paidOrderWithoutCredit, accountID: account, transactionID: transaction,
                        detail: "order \(id) is paid by \(transaction ?? "nothing") but that transaction did not "
                            + "credit account \(account)"))
            }

            return findings
        }
    }

    /// An account's balances, entitlements and latest ledger entries (newest first); nil
    /// if the account never sent a receipt nor was credited.
    public func account(id: String, ledgerLimit: Int = 50) async throws -> AccountDetails? {
        try await database.snapshot { db in
            try await SQLError.reading("account \(id)") { try await account(id, ledgerLimit, db) }
        }
    }

    private func account(_ id: String, _ ledgerLimit: Int, _ db: any SQLSession) async throws -> AccountDetails? {
        guard try await db.row("SELECT 1 AS found FROM accounts WHERE id = ?", [id]) != nil else { return nil }
        let balances = try await db.records(Balance.self, "SELECT * FROM balances WHERE account_id = ?", [id])
        let entitlements = try await db.rows(
            "SELECT name, expires_at FROM entitlements WHERE account_id = ? ORDER BY name", [id]
        ).map { row in
            let name: String = try row.get("name")
            return try SQLError.reading("entitlement \(name)") {
                AccountDetails.Entitlement(name: name, expiresAt: try row.get("expires_at"))
            }
        }
        let ledger = try await db.records(
            LedgerEntry.self, "SELECT * FROM ledger_entries WHERE account_id = ? ORDER BY id DESC LIMIT ?",
            [id, ledgerLimit])
        let flags = try await db.records(
            AccountDetails.Flag.self,
            """
            SELECT reason, currency, amount, transaction_id, notification_id, created_at
            FROM account_flags WHERE account_id = ? ORDER BY id DESC LIMIT ?
            """, [id, ledgerLimit])
        return AccountDetails(
            accountID: id,
            balances: Dictionary(balances.map { ($0.currency, $0.amount) }, uniquingKeysWith: +),
            entitlements: entitlements,
            ledger: ledger.map(\.line), flags: flags,
            consumptionConsent: try await ConsumptionRepository.consent(id, db))
    }
}
