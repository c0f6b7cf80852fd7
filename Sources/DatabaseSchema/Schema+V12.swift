extension Schema {
    /// v12: Google's chargeback reviews (RTDN `pendingRefundReviewNotification`) and our
    /// answers to them (``GoogleRefundReviewRepository``).
    ///
    /// - `google_refund_reviews`: per review notification, what we told Google
    ///   (`orders.reviewrefund`) or why not yet: `sent`; `failed`, tried again from
    ///   `next_attempt_at` while Google's 24 hours last; `refused`, Google refused it for good.
    ///   `body` is the JSON sent, `google_status` Google's HTTP status.
    /// - an index on the review notifications by time, as v5's on Apple's consumption
    ///   requests: the answerer reads only the last 24 hours of them.
    static let version12 = SchemaMigration(
        version: 12, summary: "Google's chargeback reviews and our answers",
        sqlite: [
            """
            CREATE TABLE "google_refund_reviews" (\
            "notification_id" TEXT PRIMARY KEY NOT NULL REFERENCES "store_notifications"("id"), \
            "order_id" TEXT NOT NULL CHECK (length(order_id) > 0), \
            "account_id" TEXT, \
            "status" TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'refused')), \
            "reason" TEXT, \
            "body" TEXT, \
            "google_status" INTEGER, \
            "attempts" INTEGER NOT NULL CHECK (attempts >= 0), \
            "next_attempt_at" DATETIME, \
            "updated_at" DATETIME NOT NULL)
            """,
            """
            CREATE INDEX "store_notifications_refund_reviews" ON "store_notifications"("created_at") \
            WHERE type = 'PENDING_REFUND_REVIEW'
            """,
        ],
        postgres: [
            """
            CREATE TABLE google_refund_reviews (
              notification_id TEXT PRIMARY KEY REFERENCES store_notifications(id),
              order_id TEXT NOT NULL CHECK (length(order_id) > 0),
              account_id TEXT,
              status TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'refused')),
              reason TEXT,
              body TEXT,
              google_status BIGINT,
              attempts BIGINT NOT NULL CHECK (attempts >= 0),
              next_attempt_at TIMESTAMPTZ,
              updated_at TIMESTAMPTZ NOT NULL)
            """,
            """
            CREATE INDEX store_notifications_refund_reviews ON store_notifications (created_at)
              WHERE type = 'PENDING_REFUND_REVIEW'
            """,
        ])
}
