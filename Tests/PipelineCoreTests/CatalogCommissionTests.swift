import Foundation
import PipelineCore
import Testing

/// A catalog's `commission`: the stores' rates its revenue ledger's proceeds are computed by.
@Suite struct CatalogCommissionTests {
    static func catalog(_ commission: String) throws(CatalogError) -> Catalog {
        try Catalog.decode(
            Data(
                """
                {"commission": \(commission), "products": [{"product_id": "coins", "type": "consumable",
                  "grant": {"currency": "coins", "amount": 100}}]}
                """.utf8))
    }

    @Test func aCatalogSaysItsSmallBusinessStoresAndRates() throws {
        let catalog = try Self.catalog(#"{"small_business_stores": ["apple", "google"], "standard_bp": 3000}"#)
        #expect(catalog.commission?.smallBusinessStores == ["apple", "google"])
        #expect(catalog.commission?.standardBasisPoints == 3000 && catalog.commission?.reducedBasisPoints == nil)
        #expect(try Self.catalog("{}").commission == CatalogCommission())
    }

    @Test func aRateOutsideAHundredPercentOrAStoreThatIsNoIdIsRefusedByName() {
        for (commission, message) in [
            (#"{"standard_bp": 10001}"#, "commission standard_bp 10001 is not 0-10000"),
            (#"{"reduced_bp": -1}"#, "commission reduced_bp -1 is not 0-10000"),
            (#"{"small_business_stores": ["Apple Store"]}"#, "'Apple Store' is not a store id"),
        ] {
            #expect(throws: CatalogError.self, "\(commission)") { try Self.catalog(commission) }
            do {
                _ = try Self.catalog(commission)
            } catch {
                #expect(error.description.contains(message), "\(error)")
            }
        }
    }
}
