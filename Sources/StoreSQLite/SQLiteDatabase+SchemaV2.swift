import GRDB
import Store

extension SQLiteDatabase {
    /// v2: App Store Server Notifications V2 and what they do to accounts.
    ///
    /// - `apple_notifications`: every notification Apple posted, from intake to its final
    ///   status; `payload_hash` makes Apple's resends one row, `notification_uuid` (set when
    ///   applied) makes one notification apply once.
    /// - `apple_transactions` is rebuilt so that a transaction can be recorded without an
    ///   account or a receipt (refunded before it was credited, or credited by a renewal
    ///   notification), and says which entitlement it granted.
    /// - `ledger_entries` is rebuilt for the kinds `revoke` and `refund_reversal`, the
    ///   notification that posted an entry, and "one debit per transaction" in the schema.
    /// - `receipt_transactions` is rebuilt for the outcome `bound_to_another_account`.
    /// - `notification_outbox` is rebuilt for `purchase.refund_reversed` and the notification
    ///   an event announces.
    /// - Receipt and notification ids never collide (triggers), so a verdict's id names one row.
    static func createV2(_ db: Database) throws {
        let hexDigest = { (column: String) in
            "length(\(column)) = 64 AND \(column) NOT GLOB '*[^0-9a-f]*'"
        }

        try db.create(table: "apple_notifications") { t in
            t.primaryKey("id", .text).check(sql: "length(id) BETWEEN 1 AND 128")
            t.column("payload", .text).notNull().check(sql: "length(payload) > 0")
            t.column("payload_hash", .text).notNull().unique().check(sql: hexDigest("payload_hash"))
            t.column("status", .text).notNull()
                .check(sql: "status IN ('received', 'validating', 'retrying', 'applied', 'rejected', 'dead')")
            t.column("reason", .text)
            t.column("attempts", .integer).notNull().defaults(to: 0).check(sql: "attempts >= 0")
            // Apple's id, known once verified; set only on the row that applied it.
            t.column("notification_uuid", .text).unique().check(sql: "length(notification_uuid) > 0")
            t.column("type", .text)
            t.column("subtype", .text)
            t.column("environment", .text)
            t.column("signed_date", .datetime)
            t.column("transaction_id", .text)
            t.column("original_transaction_id", .text)
            t.column("product_id", .text)
            // The account it changed, or the subscription's account it concerns.
            t.column("account_id", .text).references("accounts")
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
            t.column("published_at", .datetime)
            t.check(sql: "status NOT IN ('rejected', 'dead') OR reason IS NOT NULL")
            t.check(sql: "notification_uuid IS NULL OR status = 'applied'")
        }
        try db.create(
            index: "apple_notifications_unpublished", on: "apple_notifications",
            columns: ["created_at"], condition: Column("published_at") == nil)
        try db.create(
            index: "apple_notifications_consumption_requests", on: "apple_notifications",
            columns: ["created_at"], condition: Column("type") == "CONSUMPTION_REQUEST")

        // A verdict names its row by id alone (a dead letter carries nothing else).
        try db.execute(
            sql: """
                CREATE TRIGGER apple_notifications_id_is_not_a_receipt BEFORE INSERT ON apple_notifications
                WHEN EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id)
                BEGIN SELECT RAISE(ABORT, 'id is already a receipt''s'); END;
                CREATE TRIGGER receipts_id_is_not_a_notification BEFORE INSERT ON receipts
                WHEN EXISTS (SELECT 1 FROM apple_notifications WHERE id = NEW.id)
                BEGIN SELECT RAISE(ABORT, 'id is already an Apple notification''s'); END;
                """)

        try rebuildAppleTransactions(db)
        try rebuildLedgerEntries(db)
        try rebuildReceiptTransactions(db)
        try rebuildNotificationOutbox(db)
    }

    private static func rebuildAppleTransactions(_ db: Database) throws {
        try db.create(table: "apple_transactions_v2") { t in
            t.primaryKey("transaction_id", .text).check(sql: "length(transaction_id) > 0")
            t.column("original_transaction_id", .text).notNull()
            t.column("product_id", .text).notNull()
            t.column("quantity", .integer).notNull().check(sql: "quantity >= 1")
            t.column("environment", .text)
            // What first carried it: a receipt, or a notification (a renewal, a refund).
            t.column("receipt_id", .text).references("receipts")
            t.column("notification_id", .text).references("apple_notifications")
            // The account it credited; NULL when it never credited anyone.
            t.column("account_id", .text).references("accounts")
            t.column("purchase_date", .datetime)
            t.column("expires_date", .datetime)
            t.column("cancellation_date", .datetime)
            t.column("state", .text).notNull().check(sql: "state IN ('credited', 'refunded', 'revoked', 'unpaid')")
            // The entitlement its credit granted or extended.
            t.column("entitlement", .text).check(sql: "length(entitlement) > 0")
            t.column("created_at", .datetime).notNull()
            t.column("updated_at", .datetime).notNull()
            t.check(sql: "state <> 'credited' OR account_id IS NOT NULL")
            t.check(sql: "receipt_id IS NOT NULL OR notification_id IS NOT NULL")
        }
        try db.execute(
            sql: """
                INSERT INTO apple_transactions_v2 (
                    transaction_id, original_transaction_id, product_id, quantity, environment, receipt_id,
                    notification_id, account_id, purchase_date, expires_date, cancellation_date, state, entitlement,
                    created_at, updated_at)
                SELECT a.transaction_id, a.original_transaction_id, a.product_id, a.quantity, a.environment,
                    a.receipt_id, NULL, a.account_id, a.purchase_date, a.expires_date, a.cancellation_date, a.state,
                    (SELECT r.entitlement FROM receipt_transactions r
                     WHERE r.receipt_id = a.receipt_id AND r.transaction_id = a.transaction_id
                        AND r.outcome = 'credited'),
                    a.created_at, a.updated_at
                FROM apple_transactions a
                """)
        try db.drop(table: "apple_transactions")
        try db.rename(table: "apple_transactions_v2", to: "apple_transactions")
        try db.create(index: "apple_transactions_on_receipt", on: "apple_transactions", columns: ["receipt_id"])
        // Renewals find the account a subscription is bound to through its first transaction.
        try db.create(
            index: "apple_transactions_on_original", on: "apple_transactions",
            columns: ["original_transaction_id", "created_at"])
    }

    private static func rebuildLedgerEntries(_ db: Database) throws {
        try db.create(table: "ledger_entries_v2") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("currency", .text).notNull().check(sql: "length(currency) > 0")
            t.column("amount", .integer).notNull().check(sql: "amount <> 0")
            t.column("kind", .text).notNull()
                .check(sql: "kind IN ('purchase', 'refund', 'revoke', 'refund_reversal', 'adjustment')")
            // What posted it: the receipt, or the Apple notification, being applied.
            t.column("receipt_id", .text).references("receipts")
            t.column("notification_id", .text).references("apple_notifications")
            t.column("transaction_id", .text)
            t.column("created_at", .datetime).notNull()
            // The second guard against double credit (and double refund).
            t.uniqueKey(["transaction_id", "kind"])
            t.check(sql: "kind <> 'purchase' OR (amount > 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind NOT IN ('refund', 'revoke') OR (amount < 0 AND transaction_id IS NOT NULL)")
            t.check(sql: "kind <> 'refund_reversal' OR (amount > 0 AND transaction_id IS NOT NULL)")
        }
        try db.execute(
            sql: """
                INSERT INTO ledger_entries_v2 (
                    id, account_id, currency, amount, kind, receipt_id, notification_id, transaction_id, created_at)
                SELECT id, account_id, currency, amount, kind, receipt_id, NULL, transaction_id, created_at
                FROM ledger_entries
                """)
        try db.drop(table: "ledger_entries")
        try db.rename(table: "ledger_entries_v2", to: "ledger_entries")
        try db.create(index: "ledger_entries_on_account", on: "ledger_entries", columns: ["account_id", "id"])
        // A transaction is taken back once: refunded or revoked, not both, not twice.
        try db.create(
            index: "ledger_entries_one_debit_per_transaction", on: "ledger_entries",
            columns: ["transaction_id"], options: .unique,
            condition: ["refund", "revoke"].contains(Column("kind")))
    }

    private static func rebuildReceiptTransactions(_ db: Database) throws {
        try db.create(table: "receipt_transactions_v2") { t in
            t.column("receipt_id", .text).notNull().references("receipts")
            t.column("transaction_id", .text).notNull().check(sql: "length(transaction_id) > 0")
            t.column("product_id", .text).notNull()
            t.column("outcome", .text).notNull()
                .check(
                    sql: """
                        outcome IN ('credited', 'already_credited', 'unknown_product', 'refunded', \
                        'bound_to_another_account')
                        """)
            t.column("currency", .text)
            t.column("amount", .integer)
            t.column("entitlement", .text)
            t.column("expires_at", .datetime)
            t.primaryKey(["receipt_id", "transaction_id"])
            t.check(sql: "(currency IS NULL) = (amount IS NULL)")
            t.check(sql: "outcome <> 'credited' OR currency IS NOT NULL OR entitlement IS NOT NULL")
            t.check(sql: "outcome = 'credited' OR (currency IS NULL AND entitlement IS NULL)")
        }
        // rowid order is the order a receipt listed its transactions: keep it.
        try db.execute(
            sql: """
                INSERT INTO receipt_transactions_v2 (
                    rowid, receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at)
                SELECT rowid, receipt_id, transaction_id, product_id, outcome, currency, amount, entitlement, expires_at
                FROM receipt_transactions
                """)
        try db.drop(table: "receipt_transactions")
        try db.rename(table: "receipt_transactions_v2", to: "receipt_transactions")
    }

    private static func rebuildNotificationOutbox(_ db: Database) throws {
        try db.create(table: "notification_outbox_v2") { t in
            t.primaryKey("id", .text).check(sql: "length(id) > 0")
            t.column("type", .text).notNull().check(
                sql: """
                    type IN ('receipt.credited', 'receipt.rejected', 'receipt.dead', 'purchase.refunded', \
                    'purchase.refund_reversed', 'subscription.renewed', 'subscription.expired')
                    """)
            t.column("receipt_id", .text).references("receipts")
            // The Apple notification whose application this event announces.
            t.column("notification_id", .text).references("apple_notifications")
            t.column("account_id", .text).notNull().references("accounts")
            t.column("body", .text).notNull().check(sql: "json_valid(body)")
            t.column("status", .text).notNull().check(sql: "status IN ('pending', 'delivered', 'failed')")
            t.column("attempts", .integer).notNull().defaults(to: 0).check(sql: "attempts >= 0")
            t.column("next_attempt_at", .datetime)
            t.column("last_error", .text)
            t.column("created_at", .datetime).notNull()
            t.column("delivered_at", .datetime)
            t.check(sql: "status <> 'pending' OR next_attempt_at IS NOT NULL")
            t.check(sql: "(status = 'delivered') = (delivered_at IS NOT NULL)")
        }
        // rowid breaks ties between events due at the same moment: keep it.
        try db.execute(
            sql: """
                INSERT INTO notification_outbox_v2 (
                    rowid, id, type, receipt_id, notification_id, account_id, body, status, attempts,
                    next_attempt_at, last_error, created_at, delivered_at)
                SELECT rowid, id, type, receipt_id, NULL, account_id, body, status, attempts,
                    next_attempt_at, last_error, created_at, delivered_at
                FROM notification_outbox
                """)
        try db.drop(table: "notification_outbox")
        try db.rename(table: "notification_outbox_v2", to: "notification_outbox")
        try db.create(
            index: "notification_outbox_due", on: "notification_outbox",
            columns: ["status", "next_attempt_at"])
        // A receipt ends once, so it announces its end once.
        try db.create(
            index: "notification_outbox_one_final_per_receipt", on: "notification_outbox",
            columns: ["receipt_id"], options: .unique,
            condition: ["receipt.credited", "receipt.rejected", "receipt.dead"].contains(Column("type")))
        // A notification applies once, so it announces each of its effects once.
        try db.create(
            index: "notification_outbox_one_per_notification", on: "notification_outbox",
            columns: ["notification_id", "type"], options: .unique, condition: Column("notification_id") != nil)
    }
}
