import Foundation
import PipelineCore
import PipelineTesting
import Testing

/// The catalog loader under random and mutated catalogs: every file loads or fails with a
/// ``CatalogError``, never a crash; and a catalog that loads keeps its promises: every Apple
/// id it lists resolves to one of its products, and it is written back as it was read.
@Suite struct CatalogFuzzTests {
    /// `iap up`'s sample catalog (Sources/iap/Settings/SampleCatalog.swift) and docs/orders.md's example.
    static let seeds = [
        """
        {"time_zone": "UTC",
         "products": [
          {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100}},
          {"product_id": "com.example.gems100", "type": "consumable", "grant": {"currency": "gems", "amount": 100},
           "rules": {"daily_limit": 3, "first_purchase": {"bonus": {"currency": "gems", "amount": 100}}}},
          {"product_id": "starter_pack", "apple_product_id": "com.example.tier5", "type": "consumable",
           "grant": {"currency": "gems", "amount": 60}, "tier_default": true},
          {"product_id": "holiday_pack", "apple_product_id": "com.example.tier5", "type": "consumable",
           "grant": {"currency": "coins", "amount": 900},
           "rules": {"sale": {"from": "2026-12-20T00:00:00Z", "until": "2027-01-03T00:00:00Z"}}},
          {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"},
          {"product_id": "com.example.noads", "type": "non_consumable", "entitlement": "no_ads"}
        ]}
        """,
        """
        {"time_zone": "Asia/Shanghai",
         "products": [
          {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100},
           "rules": {"daily_limit": 5,
                     "first_purchase": {"bonus": {"currency": "coins", "amount": 100},
                                        "apple_product_id": "com.example.coins100.intro"}}},
          {"product_id": "winter_pack", "apple_product_id": "com.example.tier5", "type": "non_renewing",
           "entitlement": "winter", "tier_default": true,
           "rules": {"sale": {"from": "2026-12-20T00:00:00+08:00", "until": "2027-01-03T00:00:00+08:00"}}}
        ]}
        """,
    ]

    @Test func randomAndMutatedCatalogs_loadOrFailWithAReason() async throws {
        let seeds = try Self.seeds.map { try FuzzJSON(parsing: Data($0.utf8)) }
        for seed in seeds { _ = try Catalog.decode(Data(seed.bytes)) }  // the seeds themselves load
        try await FuzzBudget(defaultIterations: 2_000).run("catalog") { random, _ in
            let body =
                random.oneIn(4)
                ? FuzzBytes.input(from: seeds.map(\.bytes), random: &random)
                : FuzzJSON.input(from: seeds, random: &random)
            let catalog: Catalog
            do throws(CatalogError) {
                catalog = try Catalog.decode(Data(body), source: "fuzz.json")
            } catch {
                #expect(error.description.hasPrefix("fuzz.json"), "the error names the file: \(error)")
                return 1
            }
            // Every Apple id resolves to a product that lists it (a tier has its default)
            for product in catalog.products {
                for appleID in product.appleProductIDs {
                    let resolved = catalog.resolve(storeProductID: appleID)
                    #expect(resolved?.product.appleProductIDs.contains(appleID) == true, "\(appleID) resolves")
                }
                #expect(catalog.product(product.productID) != nil)
            }
            _ = catalog.timeZone
            // And it is written back as it was read
            let again = try Catalog.decode(try WireCoding.encoder().encode(catalog))
            #expect(again == catalog)
            return 1
        }
    }
}
