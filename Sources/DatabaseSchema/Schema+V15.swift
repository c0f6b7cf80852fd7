extension Schema {
    /// v15: the app each store confirmation is owed for, and each reconciliation run was for
    /// (issue 30).
    ///
    /// - `store_confirmations.app`: the app of the account the credit went to, whose stores
    ///   (its own Google service account, its own App Store key) pay the confirmation.
    /// - `reconciliation_runs.app`: the app whose Notification History the run read, so that
    ///   each app's next scheduled run starts where its own last complete one ended.
    ///
    /// `''` is the default app (bare account ids), so every row written before apps, and
    /// every row of a single-app deployment, is already right.
    static let version15 = SchemaMigration(
        version: 15, summary: "the app each store confirmation is owed for and each reconciliation run was for",
        sqlite: [
            #"ALTER TABLE "store_confirmations" ADD COLUMN "app" TEXT NOT NULL DEFAULT ''"#,
            #"ALTER TABLE "reconciliation_runs" ADD COLUMN "app" TEXT NOT NULL DEFAULT ''"#,
        ],
        postgres: [
            "ALTER TABLE store_confirmations ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE reconciliation_runs ADD COLUMN app TEXT NOT NULL DEFAULT ''",
        ])
}
