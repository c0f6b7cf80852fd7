import Foundation

/// What a legacy app receipt says: the ASN.1 SET of attributes inside its PKCS #7 container.
///
/// Only the fields the pipeline or an operator uses are read; the rest are skipped. Every field is
/// optional on the wire, so every field here is too, except the in-app purchases (none is empty).
/// See [Receipt Fields](https://developer.apple.com/library/archive/releasenotes/General/ValidateAppStoreReceipt/Chapters/ReceiptFields.html).
public struct AppReceipt: Hashable, Sendable, Codable {
    /// Field 0, raw (`Production`, `ProductionSandbox`, `Xcode`), so an unknown value round-trips.
    public var rawEnvironment: String?
    /// Field 2: the app's bundle id.
    public var bundleID: String?
    /// Field 3: the app version (`CFBundleVersion`).
    public var appVersion: String?
    /// Field 19: the version of the app first bought.
    public var originalAppVersion: String?
    /// Field 12: when the receipt was made; its chain is checked at this moment.
    public var creationDate: Date?
    /// Field 21: when the receipt expires (volume purchase receipts only).
    public var expirationDate: Date?
    /// Field 17, one entry each.
    public var inAppPurchases: [InAppPurchase]

    /// The environment, or nil when field 0 is missing or names none Apple documents.
    public var environment: AppReceiptEnvironment? { rawEnvironment.flatMap(AppReceiptEnvironment.init(rawValue:)) }

    /// Creates a receipt.
    /// - Parameters:
    ///   - environment: Field 0.
    ///   - bundleID: Field 2.
    ///   - appVersion: Field 3.
    ///   - originalAppVersion: Field 19.
    ///   - creationDate: Field 12.
    ///   - expirationDate: Field 21.
    ///   - inAppPurchases: Field 17, one entry each.
    public init(
        environment: AppReceiptEnvironment?, bundleID: String?, appVersion: String? = nil,
        originalAppVersion: String? = nil, creationDate: Date?, expirationDate: Date? = nil,
        inAppPurchases: [InAppPurchase] = []
    ) {
        self.rawEnvironment = environment?.rawValue
        self.bundleID = bundleID
        self.appVersion = appVersion
        self.originalAppVersion = originalAppVersion
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case bundleID = "bundle_id"
        case appVersion = "app_version"
        case originalAppVersion = "original_app_version"
        case creationDate = "creation_date"
        case expirationDate = "expiration_date"
        case inAppPurchases = "in_app"
    }
}
