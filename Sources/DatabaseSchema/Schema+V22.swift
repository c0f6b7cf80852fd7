extension Schema {
    /// v22: tax, and subscriptions over time, on the revenue ledger (issue 57).
    ///
    /// - `revenue_entries.tax`: the tax in `gross` where the store reports it (Google's order
    ///   `tax`, Stripe's `total_details.amount_tax`), negative on a take-back; NULL where the
    ///   store does not say (Apple's price includes tax and does not split it out).
    /// - `revenue_entries.period_ends`: a subscription period's end as the store signed it.
    /// - `revenue_entries.monthly_recurring`: the period's price scaled to a month (a year's
    ///   twelfth), in minor units: what it adds to monthly recurring revenue while it runs.
    /// - `revenue_days.subscribers`, `.recurring`: how active subscription periods and monthly
    ///   recurring revenue moved that day: a period adds on the day it is paid and takes away
    ///   on the day it ends (a future day's row until then); a refund that ends it early moves
    ///   the end. Their sum over every day up to one is that day's figure, read from the
    ///   rollup's few rows a day, not the ledger.
    /// - `revenue_days.tax`: the day's tax, as the entries'.
    static let version22 = SchemaMigration(
        version: 22, summary: "tax and subscriptions over time on the revenue ledger",
        sqlite: [
            #"ALTER TABLE "revenue_entries" ADD COLUMN "tax" INTEGER"#,
            #"ALTER TABLE "revenue_entries" ADD COLUMN "period_ends" DATETIME"#,
            #"ALTER TABLE "revenue_entries" ADD COLUMN "monthly_recurring" INTEGER"#,
            #"ALTER TABLE "revenue_days" ADD COLUMN "tax" INTEGER NOT NULL DEFAULT 0"#,
            #"ALTER TABLE "revenue_days" ADD COLUMN "subscribers" INTEGER NOT NULL DEFAULT 0"#,
            #"ALTER TABLE "revenue_days" ADD COLUMN "recurring" INTEGER NOT NULL DEFAULT 0"#,
        ],
        postgres: [
            "ALTER TABLE revenue_entries ADD COLUMN tax BIGINT",
            "ALTER TABLE revenue_entries ADD COLUMN period_ends TIMESTAMPTZ",
            "ALTER TABLE revenue_entries ADD COLUMN monthly_recurring BIGINT",
            "ALTER TABLE revenue_days ADD COLUMN tax BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE revenue_days ADD COLUMN subscribers INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE revenue_days ADD COLUMN recurring BIGINT NOT NULL DEFAULT 0",
        ])
}
