extension Schema {
    /// v20: the offer each transaction was bought with (issue 56).
    ///
    /// - `store_transactions.offer_type`: the offer's kind in the pipeline's words
    ///   (`introductory`, `promotional`, `offer_code`, `win_back`; Google's discounted offers
    ///   `developer_determined`); NULL for a purchase at the list price, or recorded before.
    /// - `store_transactions.offer_id`: the store's id of the offer (Apple's
    ///   `offerIdentifier`, Google's `offerId`).
    static let version20 = SchemaMigration(
        version: 20, summary: "the offer each transaction was bought with",
        sqlite: [
            #"ALTER TABLE "store_transactions" ADD COLUMN "offer_type" TEXT CHECK (length(offer_type) <= 64)"#,
            #"ALTER TABLE "store_transactions" ADD COLUMN "offer_id" TEXT CHECK (length(offer_id) <= 256)"#,
        ],
        postgres: [
            "ALTER TABLE store_transactions ADD COLUMN offer_type TEXT CHECK (length(offer_type) <= 64)",
            "ALTER TABLE store_transactions ADD COLUMN offer_id TEXT CHECK (length(offer_id) <= 256)",
        ])
}
