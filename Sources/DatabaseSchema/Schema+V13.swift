extension Schema {
    /// v13: Google Play's acknowledgements become store confirmations, as every plug-in
    /// store's are (``ConfirmationRepository``), and `google_acknowledgements` is dropped.
    ///
    /// Each row moves as it was: pending stays due with its attempts and next attempt, done
    /// stays done, failed stays failed with its reason; its receipt and dates kept. Its key
    /// is the transaction the token was credited as (the lowest, for a subscription renewed
    /// since; Google's transactions carry the token as their original id), or the token
    /// itself should none be recorded. Its payload is what ``GooglePlayConfirmation`` writes
    /// to the byte: `{"action":…,"purchase":{"package_name":…,"product_id":…,"purchase_token":…}}`.
    static let version13 = SchemaMigration(
        version: 13, summary: "Google Play's acknowledgements become store confirmations",
        sqlite: [
            // `WHERE true`: SQLite reads the ON CONFLICT of an INSERT … SELECT only after a WHERE.
            """
            INSERT INTO store_confirmations (
                store, transaction_id, payload, receipt_id, status, attempts, next_attempt_at, last_error,
                created_at, done_at)
            SELECT 'google', \(transactionOfToken),
                '{"action":' || json_quote(a.action) || ',"purchase":{"package_name":' || json_quote(a.package_name)
                    || ',"product_id":' || json_quote(a.product_id) || ',"purchase_token":'
                    || json_quote(a.purchase_token) || '}}',
                a.receipt_id, a.status, a.attempts, a.next_attempt_at, a.last_error, a.created_at, a.done_at
            FROM google_acknowledgements a WHERE true
            ON CONFLICT (store, transaction_id) DO NOTHING
            """,
            #"DROP TABLE "google_acknowledgements""#,
        ],
        postgres: [
            """
            INSERT INTO store_confirmations (
                store, transaction_id, payload, receipt_id, status, attempts, next_attempt_at, last_error,
                created_at, done_at)
            SELECT 'google', \(transactionOfToken),
                '{"action":' || to_json(a.action)::text || ',"purchase":{"package_name":'
                    || to_json(a.package_name)::text || ',"product_id":' || to_json(a.product_id)::text
                    || ',"purchase_token":' || to_json(a.purchase_token)::text || '}}',
                a.receipt_id, a.status, a.attempts, a.next_attempt_at, a.last_error, a.created_at, a.done_at
            FROM google_acknowledgements a
            ON CONFLICT (store, transaction_id) DO NOTHING
            """,
            "DROP TABLE google_acknowledgements",
        ])

    /// The transaction an acknowledgement's token was credited as, else the token.
    private static let transactionOfToken = """
        COALESCE(
                (SELECT MIN(t.transaction_id) FROM store_transactions t
                 WHERE t.original_transaction_id = a.purchase_token),
                a.purchase_token)
        """
}
