import Foundation

/// Renewal information of an auto-renewable subscription as the App Store signs it
/// (`signedRenewalInfo`), decoded.
///
/// It carries no bundle id: it is bound to the app by the notification or API response it came in.
/// Raw values and typed views as in ``JWSTransactionDecodedPayload``.
/// See [JWSRenewalInfoDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload).
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// `expirationIntent` as sent; see ``expirationIntent``.
    public var rawExpirationIntent: Int?
    /// [originalTransactionId](https://developer.apple.com/documentation/appstoreserverapi/originaltransactionid)
    public var originalTransactionId: String?
    /// [autoRenewProductId](https://developer.apple.com/documentation/appstoreserverapi/autorenewproductid)
    public var autoRenewProductId: String?
    /// [productId](https://developer.apple.com/documentation/appstoreserverapi/productid)
    public var productId: String?
    /// `autoRenewStatus` as sent; see ``autoRenewStatus``.
    public var rawAutoRenewStatus: Int?
    /// [isInBillingRetryPeriod](https://developer.apple.com/documentation/appstoreserverapi/isinbillingretryperiod)
    public var isInBillingRetryPeriod: Bool?
    /// `priceIncreaseStatus` as sent; see ``priceIncreaseStatus``.
    public var rawPriceIncreaseStatus: Int?
    /// [gracePeriodExpiresDate](https://developer.apple.com/documentation/appstoreserverapi/graceperiodexpiresdate)
    public var gracePeriodExpiresDate: Date?
    /// `offerType` as sent; see ``offerType``.
    public var rawOfferType: Int?
    /// [offerIdentifier](https://developer.apple.com/documentation/appstoreserverapi/offeridentifier)
    public var offerIdentifier: String?
    /// [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate)
    public var signedDate: Date?
    /// `environment` as sent; see ``environment``.
    public var rawEnvironment: String?
    /// [recentSubscriptionStartDate](https://developer.apple.com/documentation/appstoreserverapi/recentsubscriptionstartdate)
    public var recentSubscriptionStartDate: Date?
    /// [renewalDate](https://developer.apple.com/documentation/appstoreserverapi/renewaldate)
    public var renewalDate: Date?
    /// [currency](https://developer.apple.com/documentation/appstoreserverapi/currency)
    public var currency: String?
    /// [renewalPrice](https://developer.apple.com/documentation/appstoreserverapi/renewalprice), in milliunits.
    public var renewalPrice: Int64?
    /// `offerDiscountType` as sent; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// [eligibleWinBackOfferIds](https://developer.apple.com/documentation/appstoreserverapi/eligiblewinbackofferids)
    public var eligibleWinBackOfferIds: [String]?
    /// [appAccountToken](https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken), as sent.
    public var appAccountToken: String?
    /// [appTransactionId](https://developer.apple.com/documentation/appstoreserverapi/apptransactionid)
    public var appTransactionId: String?
    /// [offerPeriod](https://developer.apple.com/documentation/appstoreserverapi/offerperiod), ISO 8601.
    public var offerPeriod: String?
    /// [renewalBillingPlanType](https://developer.apple.com/documentation/appstoreserverapi/renewalbillingplantype), as sent.
    public var renewalBillingPlanType: String?
    /// [RenewalCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/renewalcommitmentinfo)
    public var commitmentInfo: RenewalCommitmentInfo?

    /// Creates a payload; every field is optional, as on the wire.
    public init(
        expirationIntent: ExpirationIntent? = nil, originalTransactionId: String? = nil,
        autoRenewProductId: String? = nil, productId: String? = nil, autoRenewStatus: AutoRenewStatus? = nil,
        isInBillingRetryPeriod: Bool? = nil, priceIncreaseStatus: PriceIncreaseStatus? = nil,
        gracePeriodExpiresDate: Date? = nil, offerType: OfferType? = nil, offerIdentifier: String? = nil,
        signedDate: Date? = nil, environment: AppStoreEnvironment? = nil, recentSubscriptionStartDate: Date? = nil,
        renewalDate: Date? = nil, currency: String? = nil, renewalPrice: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil, eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil, appTransactionId: String? = nil, offerPeriod: String? = nil,
        renewalBillingPlanType: String? = nil, commitmentInfo: RenewalCommitmentInfo? = nil
    ) {
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitmentInfo = commitmentInfo
        self.rawExpirationIntent = expirationIntent?.rawValue
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.rawAutoRenewStatus = autoRenewStatus?.rawValue
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.rawPriceIncreaseStatus = priceIncreaseStatus?.rawValue
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.rawOfferType = offerType?.rawValue
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.rawEnvironment = environment?.rawValue
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.rawOfferDiscountType = offerDiscountType?.rawValue
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
    }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case originalTransactionId, autoRenewProductId, productId
        case rawAutoRenewStatus = "autoRenewStatus"
        case isInBillingRetryPeriod
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case gracePeriodExpiresDate
        case rawOfferType = "offerType"
        case offerIdentifier, signedDate
        case rawEnvironment = "environment"
        case recentSubscriptionStartDate, renewalDate, currency, renewalPrice
        case rawOfferDiscountType = "offerDiscountType"
        case eligibleWinBackOfferIds, appAccountToken, appTransactionId, offerPeriod, renewalBillingPlanType
        case commitmentInfo
    }
}

// MARK: Typed views of the raw values

extension JWSRenewalInfoDecodedPayload {
    /// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
    public typealias OfferType = JWSTransactionDecodedPayload.OfferType
    /// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
    public typealias OfferDiscountType = JWSTransactionDecodedPayload.OfferDiscountType

    /// [expirationIntent](https://developer.apple.com/documentation/appstoreserverapi/expirationintent)
    public var expirationIntent: ExpirationIntent? {
        get { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }
        set { rawExpirationIntent = newValue?.rawValue }
    }

    /// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
    public var autoRenewStatus: AutoRenewStatus? {
        get { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
        set { rawAutoRenewStatus = newValue?.rawValue }
    }

    /// [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus)
    public var priceIncreaseStatus: PriceIncreaseStatus? {
        get { rawPriceIncreaseStatus.flatMap(PriceIncreaseStatus.init(rawValue:)) }
        set { rawPriceIncreaseStatus = newValue?.rawValue }
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

    /// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }
}
