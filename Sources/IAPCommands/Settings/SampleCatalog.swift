import Foundation
import PipelineCore

/// The catalog `iap up` and local runs use when `IAP_CATALOG` is unset: a few products of
/// each kind, and one of each purchase rule, as a starting point for a real catalog.
package enum SampleCatalog {
    package static let json = """
        {"time_zone": "UTC",
         "products": [
          {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100},
           "prices": {"CNY": 600, "USD": 99}},
          {"product_id": "com.example.coins500", "type": "consumable", "grant": {"currency": "coins", "amount": 500},
           "prices": {"CNY": 3000, "USD": 499}},
          {"product_id": "com.example.gems10", "type": "consumable", "grant": {"currency": "gems", "amount": 10}},
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
        """

    package static let catalog: Catalog = try! Catalog.decode(Data(json.utf8), source: "sample catalog")
}
