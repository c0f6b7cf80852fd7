extension Schema {
    /// v15: the app each store confirmation is owed for (issue 30).
    ///
    /// `store_confirmations.app`: the app of the account the credit went to, whose stores
    /// (its own Google service account, its own App Store key) pay the confirmation. `''` is
    /// the default app (bare account ids), so every row written before apps, and every row
    /// of a single-app deployment, is already right.
    static let version15 = SchemaMigration(
        version: 15, summary: "the app each store confirmation is owed for",
        sqlite: [#"ALTER TABLE "store_confirmations" ADD COLUMN "app" TEXT NOT NULL DEFAULT ''"#],
        postgres: ["ALTER TABLE store_confirmations ADD COLUMN app TEXT NOT NULL DEFAULT ''"])
}
