import Foundation
import PipelineCore
import Settlement

/// A catalog and transactions for the engine's tests.
enum EngineFixture {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static let coins = "com.example.coins100"
    static let vip = "com.example.vip.monthly"
    static let starter = "com.example.starter"

    static let catalog = Catalog(products: [
        Product(productID: coins, kind: .consumable, grant: Grant(currency: "coins", amount: 100)),
        Product(productID: vip, kind: .autoRenewable, entitlement: "vip"),
        Product(
            productID: starter, kind: .consumable, grant: Grant(currency: "gems", amount: 10),
            rules: PurchaseRules(firstPurchase: FirstPurchase(bonus: Grant(currency: "gems", amount: 5)))),
    ])

    static let engine = SettlementEngine(catalog: catalog)

    static func purchase(
        _ id: String, product: String = coins, original: String? = nil, quantity: Int = 1,
        expires: Date? = nil, cancelled: Date? = nil, token: String? = nil, share: Int? = nil
    ) -> VerifiedTransaction {
        VerifiedTransaction(
            transactionID: id, originalTransactionID: original ?? id, productID: product, quantity: quantity,
            purchaseDate: t0, expiresDate: expires, cancellationDate: cancelled, appAccountToken: token,
            revocationPercentage: share)
    }

    static func receipt(_ id: String = "r1", by claimant: String = "a1", order: OrderClaim? = nil)
        -> SettlementEvent.Source
    {
        .receipt(receiptID: id, claimant: claimant, order: order, cause: Cause(receiptID: id, store: "apple"))
    }

    static func notice(_ id: String = "n1", uuid: String = "U1") -> Cause {
        Cause(notificationID: id, notificationUUID: uuid, store: "apple")
    }
}
