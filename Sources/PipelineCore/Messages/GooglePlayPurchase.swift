import Foundation

/// A Google Play purchase as the game's backend names it: the app, the product and the
/// purchase token. Only Google's Developer API says what it is worth.
public struct GooglePlayPurchase: WireJSONStored, Hashable, Sendable {
    public var packageName: String
    public var productID: String
    public var purchaseToken: String

    public init(packageName: String, productID: String, purchaseToken: String) {
        self.packageName = packageName
        self.productID = productID
        self.purchaseToken = purchaseToken
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case productID = "product_id"
        case purchaseToken = "purchase_token"
    }
}
