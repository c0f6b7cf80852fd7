import Foundation
import PipelineCore
import Testing

@Suite struct CatalogTests {
    func decode(_ json: String) throws(CatalogError) -> Catalog {
        try Catalog.decode(Data(json.utf8), source: "test.json")
    }

    func error(_ json: String) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theDesignsCatalog_stillReads() throws {
        let catalog = try decode(
            """
            {"products": [
              {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100}},
              {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"}
            ]}
            """)
        #expect(catalog.product("com.example.coins100")?.appleProductID == "com.example.coins100")
        #expect(catalog.resolve(storeProductID: "com.example.vip.monthly")?.product.entitlement == "vip")
        #expect(catalog.timeZone.secondsFromGMT() == 0)
    }

    @Test func rulesAndTiers_read() throws {
        let catalog = try decode(
            """
            {"time_zone": "Asia/Shanghai", "products": [
              {"product_id": "starter", "apple_product_id": "tier5", "type": "consumable",
               "grant": {"currency": "gems", "amount": 50}, "tier_default": true},
              {"product_id": "winter", "apple_product_id": "tier5", "type": "consumable",
               "grant": {"currency": "coins", "amount": 900},
               "rules": {"sale": {"from": "2026-12-01T00:00:00Z", "until": "2026-12-08T00:00:00+08:00"},
                         "daily_limit": 3,
                         "first_purchase": {"bonus": {"currency": "coins", "amount": 100}, "apple_product_id": "tier3"}}}
            ]}
            """)
        let winter = try #require(catalog.product("winter"))
        #expect(winter.rules?.sale?.from == Date(timeIntervalSince1970: 1_796_083_200))
        #expect(winter.rules?.sale?.until == Date(timeIntervalSince1970: 1_796_659_200))
        #expect(winter.appleProductIDs == ["tier5", "tier3"])
        #expect(catalog.timeZone.identifier == "Asia/Shanghai")
        // Apple's id decides; an order picks among a tier's products.
        #expect(catalog.resolve(storeProductID: "tier5")?.product.productID == "starter")
        #expect(catalog.resolve(storeProductID: "tier5", ordered: winter) == .init(product: winter, matchesOrder: true))
        #expect(catalog.resolve(storeProductID: "tier3")?.product.productID == "winter")
        let starter = try #require(catalog.product("starter"))
        #expect(
            catalog.resolve(storeProductID: "tier3", ordered: starter) == .init(product: winter, matchesOrder: false))
        #expect(catalog.resolve(storeProductID: "unknown") == nil)
    }

    @Test(arguments: [
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "prices": {"cny": 600}}"#,
            "prices.cny is not an ISO 4217 code"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "prices": {"CNY": 6.5}}"#,
            "a number is a fraction or past 64 bits where a whole number is taken"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 2.5}}"#,
            "a number is a fraction or past 64 bits where a whole number is taken"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "prices": {"CNY": 0}}"#,
            "prices.CNY must be 1...1000000000 minor units"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "coins", "amount": -5}}"#,
            "grant.amount must be 1...1000000000, got -5"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "coins", "amount": 99999999999}}"#,
            "grant.amount must be"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "", "amount": 5}}"#,
            "grant.currency is empty"
        ),
        (#"{"product_id": "p", "type": "gift", "entitlement": "x"}"#, "unknown type gift"),
        (#"{"product_id": "p", "type": "consumable"}"#, "grants nothing"),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"sale": {"from": "tomorrow"}}}"#,
            "not an ISO 8601 date: tomorrow"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"sale": {"from": "2026-12-08T00:00:00Z", "until": "2026-12-01T00:00:00Z"}}}"#,
            "rules.sale.from must be before rules.sale.until"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"sale": {}}}"#,
            "rules.sale needs from or until"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"daily_limit": 0}}"#,
            "rules.daily_limit must be 1...10000, got 0"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"first_purchase": {"bonus": {"currency": "gems", "amount": 5}}}}"#,
            "bonus must be in the currency"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "rules": {"first_purchase": {}}}"#,
            "needs bonus or apple_product_id"
        ),
        (
            #"{"product_id": "p", "type": "consumable", "grant": {"currency": "c", "amount": "ten"}}"#,
            "products.[0].grant.amount"
        ),
    ])
    func badProducts_areRefused_namingTheProblem(product: String, expected: String) {
        let message = error(#"{"products": [\#(product)]}"#)
        #expect(message?.contains(expected) == true, "\(message ?? "accepted")")
        #expect(message?.hasPrefix("test.json") == true)
    }

    @Test func prices_readInMinorUnitsByCurrency() throws {
        let catalog = try decode(
            #"{"products": [{"product_id": "coins", "type": "consumable", "grant": {"currency": "c", "amount": 1}, "prices": {"CNY": 600, "JPY": 120}}]}"#
        )
        #expect(catalog.products[0].price(in: "CNY") == 600)
        #expect(catalog.products[0].price(in: "JPY") == 120)
        #expect(catalog.products[0].price(in: "USD") == nil)
    }

    @Test func aSharedAppleID_needsExactlyOneTierDefault() {
        let shared = """
            {"products": [
              {"product_id": "a", "apple_product_id": "tier5", "type": "consumable", "grant": {"currency": "c", "amount": 1}},
              {"product_id": "b", "apple_product_id": "tier5", "type": "consumable", "grant": {"currency": "c", "amount": 2}}
            ]}
            """
        #expect(error(shared)?.contains("store product id tier5 is shared by a, b") == true)
    }

    @Test func anUnknownTimeZone_andDuplicates_areRefused() {
        #expect(error(#"{"time_zone": "Mars/Olympus", "products": []}"#)?.contains("time_zone Mars/Olympus") == true)
        let twice = #"{"product_id": "p", "type": "non_consumable", "entitlement": "x"}"#
        #expect(error(#"{"products": [\#(twice), \#(twice)]}"#)?.contains("listed twice") == true)
    }
}
