import Foundation

/// A transaction as the App Store signs it (`signedTransaction`, `signedTransactionInfo`), decoded.
///
/// Enumerations are kept as the raw values Apple sent (`rawType`, `rawEnvironment`, ...), so a
/// value this code does not know still decodes and round-trips; the typed properties (`type`,
/// `environment`, ...) read them. Dates are milliseconds since 1970 on the wire.
/// See [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload).
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// [originalTransactionId](https://developer.apple.com/documentation/appstoreserverapi/originaltransactionid)
    public var originalTransactionId: String?
    /// [transactionId](https://developer.apple.com/documentation/appstoreserverapi/transactionid)
    public var transactionId: String?
    /// [webOrderLineItemId](https://developer.apple.com/documentation/appstoreserverapi/weborderlineitemid)
    public var webOrderLineItemId: String?
    /// [bundleId](https://developer.apple.com/documentation/appstoreserverapi/bundleid)
    public var bundleId: String?
    /// [productId](https://developer.apple.com/documentation/appstoreserverapi/productid)
    public var productId: String?
    /// [subscriptionGroupIdentifier](https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifier)
    public var subscriptionGroupIdentifier: String?
    /// [purchaseDate](https://developer.apple.com/documentation/appstoreserverapi/purchasedate)
    public var purchaseDate: Date?
    /// [originalPurchaseDate](https://developer.apple.com/documentation/appstoreserverapi/originalpurchasedate)
    public var originalPurchaseDate: Date?
    /// [expiresDate](https://developer.apple.com/documentation/appstoreserverapi/expiresdate): subscriptions only.
    public var expiresDate: Date?
    /// [quantity](https://developer.apple.com/documentation/appstoreserverapi/quantity)
    public var quantity: Int?
    /// `type` as sent: `Consumable`, `Auto-Renewable Subscription`, ...; see ``type``.
    public var rawType: String?
    /// [appAccountToken](https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken):
    /// the UUID the app attached to the purchase, as Apple sent it (lowercase).
    public var appAccountToken: String?
    /// `inAppOwnershipType` as sent; see ``inAppOwnershipType``.
    public var rawInAppOwnershipType: String?
    /// [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate)
    public var signedDate: Date?
    /// `revocationReason` as sent; see ``revocationReason``.
    public var rawRevocationReason: Int?
    /// [revocationDate](https://developer.apple.com/documentation/appstoreserverapi/revocationdate):
    /// set when Apple refunded or revoked the transaction.
    public var revocationDate: Date?
    /// [revocationType](https://developer.apple.com/documentation/appstoreserverapi/revocationtype):
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`, as sent.
    public var revocationType: String?
    /// [revocationPercentage](https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage):
    /// the refunded share of a prorated refund, in milliunits (100000 is all of it).
    public var revocationPercentage: Int?
    /// [isUpgraded](https://developer.apple.com/documentation/appstoreserverapi/isupgraded)
    public var isUpgraded: Bool?
    /// `offerType` as sent; see ``offerType``.
    public var rawOfferType: Int?
    /// [offerIdentifier](https://developer.apple.com/documentation/appstoreserverapi/offeridentifier)
    public var offerIdentifier: String?
    /// `environment` as sent: `Sandbox` or `Production`; see ``environment``.
    public var rawEnvironment: String?
    /// [storefront](https://developer.apple.com/documentation/appstoreserverapi/storefront)
    public var storefront: String?
    /// [storefrontId](https://developer.apple.com/documentation/appstoreserverapi/storefrontid)
    public var storefrontId: String?
    /// `transactionReason` as sent; see ``transactionReason``.
    public var rawTransactionReason: String?
    /// [currency](https://developer.apple.com/documentation/appstoreserverapi/currency)
    public var currency: String?
    /// [price](https://developer.apple.com/documentation/appstoreserverapi/price), in milliunits.
    public var price: Int64?
    /// `offerDiscountType` as sent; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// [appTransactionId](https://developer.apple.com/documentation/appstoreserverapi/apptransactionid)
    public var appTransactionId: String?
    /// [offerPeriod](https://developer.apple.com/documentation/appstoreserverapi/offerperiod), ISO 8601.
    public var offerPeriod: String?
    /// [billingPlanType](https://developer.apple.com/documentation/appstoreserverapi/billingplantype):
    /// how the subscription is billed (`MONTHLY` for a monthly plan with a 12-month commitment), as sent.
    public var billingPlanType: String?
    /// [TransactionCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/transactioncommitmentinfo)
    public var commitmentInfo: TransactionCommitmentInfo?

    /// Creates a payload; every field is optional, as on the wire.
    public init(
        originalTransactionId: String? = nil, transactionId: String? = nil, webOrderLineItemId: String? = nil,
        bundleId: String? = nil, productId: String? = nil, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Date? = nil, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
        quantity: Int? = nil, type: ProductType? = nil, appAccountToken: String? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil, signedDate: Date? = nil,
        revocationReason: RevocationReason? = nil, revocationDate: Date? = nil, isUpgraded: Bool? = nil,
        offerType: OfferType? = nil, offerIdentifier: String? = nil, environment: AppStoreEnvironment? = nil,
        storefront: String? = nil, storefrontId: String? = nil, transactionReason: TransactionReason? = nil,
        currency: String? = nil, price: Int64? = nil, offerDiscountType: OfferDiscountType? = nil,
        appTransactionId: String? = nil, offerPeriod: String? = nil, revocationType: String? = nil,
        revocationPercentage: Int? = nil, billingPlanType: String? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil
    ) {
        self.billingPlanType = billingPlanType
        self.commitmentInfo = commitmentInfo
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.rawType = type?.rawValue
        self.appAccountToken = appAccountToken
        self.rawInAppOwnershipType = inAppOwnershipType?.rawValue
        self.signedDate = signedDate
        self.rawRevocationReason = revocationReason?.rawValue
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.rawOfferType = offerType?.rawValue
        self.offerIdentifier = offerIdentifier
        self.rawEnvironment = environment?.rawValue
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.rawTransactionReason = transactionReason?.rawValue
        self.currency = currency
        self.price = price
        self.rawOfferDiscountType = offerDiscountType?.rawValue
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, transactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity
        case rawType = "type"
        case appAccountToken
        case rawInAppOwnershipType = "inAppOwnershipType"
        case signedDate
        case rawRevocationReason = "revocationReason"
        case revocationDate, revocationType, revocationPercentage, isUpgraded
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawEnvironment = "environment"
        case storefront, storefrontId
        case rawTransactionReason = "transactionReason"
        case currency, price
        case rawOfferDiscountType = "offerDiscountType"
        case appTransactionId, offerPeriod, billingPlanType, commitmentInfo
    }
}

// MARK: Typed views of the raw values

extension JWSTransactionDecodedPayload {
    /// [type](https://developer.apple.com/documentation/appstoreserverapi/type); `nil` if absent or unknown.
    public var type: ProductType? {
        get { rawType.flatMap(ProductType.init(rawValue:)) }
        set { rawType = newValue?.rawValue }
    }

    /// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
    public var inAppOwnershipType: InAppOwnershipType? {
        get { rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:)) }
        set { rawInAppOwnershipType = newValue?.rawValue }
    }

    /// [revocationReason](https://developer.apple.com/documentation/appstoreserverapi/revocationreason)
    public var revocationReason: RevocationReason? {
        get { rawRevocationReason.flatMap(RevocationReason.init(rawValue:)) }
        set { rawRevocationReason = newValue?.rawValue }
    }

    /// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
    public var offerType: OfferType? {
        get { rawOfferType.flatMap(OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    /// [environment](https://developer.apple.com/documentation/appstoreserverapi/environment)
    public var environment: AppStoreEnvironment? {
        get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    /// [transactionReason](https://developer.apple.com/documentation/appstoreserverapi/transactionreason)
    public var transactionReason: TransactionReason? {
        get { rawTransactionReason.flatMap(TransactionReason.init(rawValue:)) }
        set { rawTransactionReason = newValue?.rawValue }
    }

    /// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }
}
