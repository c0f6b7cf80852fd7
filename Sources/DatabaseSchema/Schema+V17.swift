extension Schema {
    /// v17: indexes for the operators' search by any id a player or a store gives them.
    ///
    /// The console's search box and the account finder (`iap account show`, the console's
    /// accounts page) take a receipt, account, order or transaction id and look in every
    /// column that may hold it. Four of those columns had no index, so each search read
    /// `receipts`, `receipt_transactions` and `store_notifications` whole: 0.6 s warm and 6 s
    /// cold over a million receipts.
    /// - `receipt_transactions_on_transaction`: every receipt that carried a transaction, the
    ///   one that credited it and those that came again with it. Each receipt's commit in the
    ///   fulfiller writes one more index entry per transaction.
    /// - `receipts_on_order`: receipts that name an order (partial: most name none).
    /// - `store_notifications_on_account`, `..._on_transaction`, `..._on_original`: a
    ///   store's notifications by the account and the transactions they concern (partial).
    static let version17 = SchemaMigration(
        version: 17, summary: "indexes for the operators' search by account, order and transaction",
        sqlite: [
            #"CREATE INDEX "receipt_transactions_on_transaction" ON "receipt_transactions"("transaction_id")"#,
            #"CREATE INDEX "receipts_on_order" ON "receipts"("order_id") WHERE "order_id" IS NOT NULL"#,
            """
            CREATE INDEX "store_notifications_on_account" ON "store_notifications"("account_id") \
            WHERE "account_id" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_on_transaction" ON "store_notifications"("transaction_id") \
            WHERE "transaction_id" IS NOT NULL
            """,
            """
            CREATE INDEX "store_notifications_on_original" ON "store_notifications"("original_transaction_id") \
            WHERE "original_transaction_id" IS NOT NULL
            """,
        ],
        postgres: [
            "CREATE INDEX receipt_transactions_on_transaction ON receipt_transactions (transaction_id)",
            "CREATE INDEX receipts_on_order ON receipts (order_id) WHERE order_id IS NOT NULL",
            "CREATE INDEX store_notifications_on_account ON store_notifications (account_id) WHERE account_id IS NOT NULL",
            """
            CREATE INDEX store_notifications_on_transaction ON store_notifications (transaction_id) \
            WHERE transaction_id IS NOT NULL
            """,
            """
            CREATE INDEX store_notifications_on_original ON store_notifications (original_transaction_id) \
            WHERE original_transaction_id IS NOT NULL
            """,
        ])
}
