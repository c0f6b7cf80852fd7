import Foundation
import PipelineCore

/// The catalog `iap up` and local runs use when `IAP_CATALOG` is unset; also written to
/// `deploy/catalog.sample.json` as a starting point.
enum SampleCatalog {
    static let json = """
        {"products": [
          {"product_id": "com.example.coins100", "type": "consumable", "grant": {"currency": "coins", "amount": 100}},
          {"product_id": "com.example.coins500", "type": "consumable", "grant": {"currency": "coins", "amount": 500}},
          {"product_id": "com.example.gems10", "type": "consumable", "grant": {"currency": "gems", "amount": 10}},
          {"product_id": "com.example.vip.monthly", "type": "auto_renewable", "entitlement": "vip"},
          {"product_id": "com.example.noads", "type": "non_consumable", "entitlement": "no_ads"}
        ]}
        """

    static let catalog: Catalog = try! Catalog.decode(Data(json.utf8), source: "sample catalog")
}
