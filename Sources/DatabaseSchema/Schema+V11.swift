extension Schema {
    /// v11: the W3C trace context of each receipt and webhook, so that a receipt's trace
    /// goes on across processes and restarts (docs/monitoring.md, "Traces").
    ///
    /// - `receipts.traceparent`: the intake's span, which the relay's publish continues
    ///   (the sweep, after a crash, too).
    /// - `notification_outbox.traceparent`: the fulfiller's span that wrote the webhook,
    ///   which each delivery attempt continues.
    ///
    /// Both are null when tracing is off, and for rows written before.
    static let version11 = SchemaMigration(
        version: 11, summary: "trace context of receipts and webhooks",
        sqlite: [
            #"ALTER TABLE "receipts" ADD COLUMN "traceparent" TEXT"#,
            #"ALTER TABLE "notification_outbox" ADD COLUMN "traceparent" TEXT"#,
        ],
        postgres: [
            "ALTER TABLE receipts ADD COLUMN traceparent TEXT",
            "ALTER TABLE notification_outbox ADD COLUMN traceparent TEXT",
        ])
}
