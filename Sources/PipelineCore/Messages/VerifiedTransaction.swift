import Foundation

/// One Apple transaction that the verify endpoint vouched for.
///
/// Built from an `in_app` / `latest_receipt_info` entry of a `verifyReceipt` answer, or
/// from a verified StoreKit 2 `JWSTransactionDecodedPayload`.
public struct VerifiedTransaction: Codable, Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var quantity: Int
    public var purchaseDate: Date?
    /// Set for subscriptions: the end of the period this transaction paid for.
    public var expiresDate: Date?
    /// Set when Apple refunded or revoked the transaction.
    public var cancellationDate: Date?
    public var appAccountToken: String?
    /// StoreKit 2's `type`: `Consumable`, `Auto-Renewable Subscription`, ...; nil for legacy receipts.
    public var productType: String?
    /// Apple's `revocationPercentage`, in milliunits (100000 is all of it), for a
    /// prorated refund (Stripe's `amount_refunded` of `amount`, all refunds together); nil
    /// for a full refund or none.
    public var revocationPercentage: Int?
    /// What a plug-in store wants back once this transaction is credited (Huawei's
    /// consumption confirmation): opaque to the pipeline, owed in the credit's own database
    /// transaction and handed to the store's `confirm` until it succeeds.
    public var confirmation: String?
    /// The account the store itself names for the purchase, read back from its API (Stripe's
    /// `client_reference_id`, which the backend set when it created the payment): binds a
    /// purchase no client posted, after the subscription's and the token's rules.
    public var storeAccountID: String?
    /// For a refund of part of a multi-unit purchase (Google's quantity-based partial
    /// refund): how many of its `quantity` units were refunded so far, all refunds of the
    /// order together; nil when the refund is not counted in units.
    public var refundedQuantity: Int?
    /// Apple's `appTransactionId`: the app download's id, one per Apple Account and app,
    /// across all its purchases.
    public var appTransactionID: String?
    /// Apple's `offerPeriod` (ISO 8601, `P1M`): how long the offer this transaction used lasts.
    public var offerPeriod: String?
    /// Apple's `billingPlanType` (`MONTHLY` for a monthly subscription with a 12-month commitment).
    public var billingPlanType: String?
    /// When such a commitment ends (`commitmentInfo.commitmentExpiresDate`).
    public var commitmentExpiresDate: Date?
    /// The subscription this one replaces (Google's `linkedPurchaseToken`, as an original
    /// transaction id): an upgrade, a downgrade or a resubscription under a new token.
    public var linkedOriginalTransactionID: String?
    /// Apple's `isUpgraded`: the customer upgraded to another subscription of the group, which
    /// ended this one (its `revocationDate`, here ``cancellationDate``) without a refund.
    public var isUpgraded: Bool?
    /// The offer the purchase used, in the pipeline's words (`introductory`, `promotional`,
    /// `offer_code`, `win_back`, `developer_determined`), and the store's id for it.
    public var offerType: String?
    public var offerID: String?
    /// Apple's `inAppOwnershipType` when it is not `PURCHASED` (the purchaser's own):
    /// `FAMILY_SHARED` for a family member's access to what another member bought.
    public var ownershipType: String?
    /// What the player paid for the whole transaction (every unit), as the store reported it,
    /// in millionths of ``currency``'s major unit (Apple's milli-units × 1000, Xiaomi's fen ×
    /// 10,000): exact for every store's unit. Nil when the store reports no price.
    public var priceMicros: Int64?
    /// The ISO 4217 code of ``priceMicros``.
    public var currency: String?
    /// The tax in ``priceMicros``, in the same unit, where the store reports it apart
    /// (Google's order `tax`, Stripe's `amount_tax`); nil where it does not say.
    public var taxMicros: Int64?
    /// Where it was bought, as the store names the country (Apple's storefront, ISO 3166 alpha-3).
    public var country: String?

    public init(
        transactionID: String, originalTransactionID: String, productID: String, quantity: Int = 1,
        purchaseDate: Date? = nil, expiresDate: Date? = nil, cancellationDate: Date? = nil,
        appAccountToken: String? = nil, productType: String? = nil, revocationPercentage: Int? = nil,
        confirmation: String? = nil, storeAccountID: String? = nil, refundedQuantity: Int? = nil,
        appTransactionID: String? = nil, offerPeriod: String? = nil, billingPlanType: String? = nil,
        commitmentExpiresDate: Date? = nil, linkedOriginalTransactionID: String? = nil, isUpgraded: Bool? = nil,
        offerType: String? = nil, offerID: String? = nil, ownershipType: String? = nil, priceMicros: Int64? = nil,
        currency: String? = nil, country: String? = nil, taxMicros: Int64? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.appAccountToken = appAccountToken
        self.productType = productType
        self.revocationPercentage = revocationPercentage
        self.confirmation = confirmation
        self.storeAccountID = storeAccountID
        self.refundedQuantity = refundedQuantity
        self.appTransactionID = appTransactionID
        self.offerPeriod = offerPeriod
        self.billingPlanType = billingPlanType
        self.commitmentExpiresDate = commitmentExpiresDate
        self.linkedOriginalTransactionID = linkedOriginalTransactionID
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerID = offerID
        self.ownershipType = ownershipType
        self.priceMicros = priceMicros
        self.currency = currency
        self.country = country
        self.taxMicros = taxMicros
    }

    /// A family member's access to what another member of the family bought (Apple's Family Sharing).
    public var isFamilyShared: Bool { ownershipType == "FAMILY_SHARED" }

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case cancellationDate = "cancellation_date"
        case appAccountToken = "app_account_token"
        case productType = "product_type"
        case revocationPercentage = "revocation_percentage"
        case confirmation
        case storeAccountID = "store_account_id"
        case refundedQuantity = "refunded_quantity"
        case appTransactionID = "app_transaction_id"
        case offerPeriod = "offer_period"
        case billingPlanType = "billing_plan_type"
        case commitmentExpiresDate = "commitment_expires_date"
        case linkedOriginalTransactionID = "linked_original_transaction_id"
        case isUpgraded = "is_upgraded"
        case offerType = "offer_type"
        case offerID = "offer_id"
        case ownershipType = "ownership_type"
        case priceMicros = "price_micros"
        case currency, country
        case taxMicros = "tax_micros"
    }
}
