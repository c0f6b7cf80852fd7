/// Every metric the pipeline exports, named once, in Prometheus' conventions: an `iap_`
/// prefix, base units (seconds), `_total` on counters.
///
/// Labels stay few and bounded (a receipt kind, a queue name, an outcome), never a receipt
/// or account id: each label value is a time series of its own.
public enum MetricName {
    /// Receipts the intake committed (answered 202), by `kind`: `legacy`, `storekit2`, `notification`.
    public static let receiptsReceived = "iap_receipts_received_total"
    /// Stores' notifications the intake answered and dropped unstored, by `store`: notices
    /// no credential proves (Huawei's order notices) about a purchase no app recorded.
    public static let notificationsDropped = "iap_notifications_dropped_total"
    /// Verdicts `valid` that the validator handed to the fulfiller.
    public static let receiptsValidated = "iap_receipts_validated_total"
    /// Verdicts `rejected` (permanent failures) that the validator handed on.
    public static let receiptsRejected = "iap_receipts_rejected_total"
    /// Transient failures the validator sent to a delay tier.
    public static let receiptsRetried = "iap_receipts_retried_total"
    /// Messages the validator sent to a delay tier without an attempt, because a call budget
    /// (Apple's per-endpoint limits) had no room soon enough.
    public static let receiptsDeferred = "iap_receipts_deferred_total"
    /// Messages dead-lettered, by `source`: `validator` (attempts used up, unparseable)
    /// or `broker` (RabbitMQ's delivery limit and other broker-side dead letters, counted
    /// by the fulfiller when it archives them).
    public static let receiptsDeadLettered = "iap_receipts_dead_lettered_total"
    /// Receipts the fulfiller credited (ledger entry, balance or entitlement committed).
    public static let receiptsCredited = "iap_receipts_credited_total"
    /// The revenue ledger's payments (purchases and renewals) committed, by app, store and currency.
    public static let revenuePayments = "iap_revenue_payments_total"
    /// What they paid, gross, in minor units of the `currency` label (tax included where the
    /// store includes it).
    public static let revenuePaid = "iap_revenue_paid_minor_units_total"
    /// What refunds, revocations and chargebacks gave back, in minor units (reversals not deducted).
    public static let revenueGivenBack = "iap_revenue_given_back_minor_units_total"
    /// Proceeds after the store's commission, of payments, in minor units.
    public static let revenueProceeds = "iap_revenue_proceeds_minor_units_total"
    /// Webhooks the receiver answered with 2xx.
    public static let webhooksDelivered = "iap_webhooks_delivered_total"
    /// Webhook attempts that failed (non-2xx or network error), by `final`: `false` when
    /// another attempt is scheduled, `true` when the attempts are used up.
    public static let webhooksFailed = "iap_webhooks_failed_total"
    /// One call to the verify endpoint (Apple's verifyReceipt, or the StoreKit 2 checks, or
    /// Google Play's API), by `store` (`apple`, `google_play`) and `outcome`: `valid`,
    /// `notification`, `rejected`, `transient`, `deferred`.
    public static let verifyDuration = "iap_verify_duration_seconds"
    /// From the intake's commit of a receipt to the fulfiller's commit of its credit.
    public static let endToEndDuration = "iap_end_to_end_duration_seconds"
    /// Ready messages in each pipeline queue, by `queue`, polled every few seconds.
    public static let queueDepth = "iap_queue_depth"
    /// Consumers on each pipeline queue, by `queue`.
    public static let queueConsumers = "iap_queue_consumers"
    /// Notifications Apple's Notification History listed as never delivered that we had
    /// never stored, by `environment`; each fed through the validate queue (not on a dry run).
    public static let reconcileMissing = "iap_reconcile_missing_total"
    /// Reconciliation runs, by `result`: `clean` (nothing missing), `fixed`, `failed`.
    public static let reconcileRuns = "iap_reconcile_runs_total"
    /// Answers to Apple's consumption requests, by `status`: `sent`, `withheld` (no consent),
    /// `failed` (tried again within Apple's 12 hours).
    public static let consumptionAnswers = "iap_consumption_answers_total"
    /// App Store Server API calls booked in the shared budget, by `budget`
    /// (`appstore.<environment>.<endpoint>`).
    public static let apiCalls = "iap_appstore_api_calls_total"
    /// Calls the budget could not book soon enough (the message waits in a delay tier), by `budget`.
    public static let apiCallsDeferred = "iap_appstore_api_deferred_total"
    /// `429`s from Apple, each a pause of the budget for every process, by `budget`.
    public static let apiRateLimited = "iap_appstore_api_rate_limited_total"
    /// The budget in use: calls booked (by every process) in the second of the latest booking,
    /// over Apple's limit, by `budget`. 0.9 is the most spent by default.
    public static let apiBudgetUsed = "iap_appstore_api_budget_used_ratio"
    /// Gauge: credited purchases whose store is still unconfirmed two days later, or given up
    /// on, by `store` (Google refunds a Play purchase left unacknowledged for three days).
    /// Until schema v13 Google's alone, as `iap_google_acknowledgements_overdue`.
    public static let storeConfirmationsOverdue = "iap_store_confirmations_overdue"
    /// Connections the intake closed at accept for being over a cap, by `reason`:
    /// `per_address` (`IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS`) or `total` (`IAP_HTTP_MAX_CONNECTIONS`).
    public static let connectionsRefused = "iap_http_connections_refused_total"
    /// Gauge: the intake's open connections.
    public static let connectionsOpen = "iap_http_connections_open"
    /// How far ahead the budget is booked (callers waiting their turn), in seconds, by `budget`.
    public static let apiBudgetBookedAhead = "iap_appstore_api_budget_booked_ahead_seconds"
    /// How long a write waited for its database commit, by `stage`: `intake` (a receipt's
    /// wait for the group commit that makes it durable, the bulk of a 202's time) and
    /// `fulfiller` (one batch of verdicts applied in one transaction).
    public static let databaseCommitDuration = "iap_database_commit_duration_seconds"
    /// From the commit that queued a webhook (its outbox row) to the receiver's 2xx: retries
    /// and backoff included.
    public static let webhookDeliveryLag = "iap_webhook_delivery_lag_seconds"
    /// Written by `iap audit --metrics-file` for a textfile collector: findings of the last
    /// audit (0: the books balance), and when it last ran to the end (Unix seconds).
    public static let auditFindings = "iap_audit_findings"
    public static let auditCompleted = "iap_audit_completed_timestamp_seconds"
    /// Requests the intake answered 503 because the database did not take them, by `reason`.
    public static let intakeUnavailable = "iap_intake_unavailable_total"
    /// 1 while a stage waits for a database that cannot take its work (`stage`).
    public static let stagePaused = "iap_stage_paused"
    /// 1 while the broker blocks the relay's publishing (a resource alarm: its disk or memory).
    public static let relayBlocked = "iap_relay_blocked"
}
