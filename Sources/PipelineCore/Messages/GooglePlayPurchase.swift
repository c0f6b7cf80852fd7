import Foundation

/// A Google Play purchase as the game's backend names it: the app, the product and the
/// purchase token. Only Google's Developer API says what it is worth.
public struct GooglePlayPurchase: Codable, Hashable, Sendable {
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

    /// The stored form: sorted-key JSON, the same bytes for the same purchase, so that a
    /// resend is found as a duplicate.
    public var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The purchase a stored payload holds, or nil.
    public init?(canonicalJSON text: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = decoded
    }
}
