import Foundation

/// A one-time product purchase as `purchases.productsv2.getproductpurchasev2` answers it.
/// Enumerations are kept as Google's strings, so that a value added later still decodes.
public struct ProductPurchaseV2: Codable, Hashable, Sendable {
    public struct LineItem: Codable, Hashable, Sendable {
        public struct OfferDetails: Codable, Hashable, Sendable {
            /// `CONSUMPTION_STATE_YET_TO_BE_CONSUMED` or `CONSUMPTION_STATE_CONSUMED`.
            public var consumptionState: String?
            public var quantity: Int?
            /// What has not been refunded yet.
            public var refundableQuantity: Int?
            public var offerId: String?
            public var purchaseOptionId: String?

            public init(consumptionState: String? = nil, quantity: Int? = nil, refundableQuantity: Int? = nil) {
                self.consumptionState = consumptionState
                self.quantity = quantity
                self.refundableQuantity = refundableQuantity
            }
        }

        public var productId: String
        public var productOfferDetails: OfferDetails?

        public init(productId: String, productOfferDetails: OfferDetails? = nil) {
            self.productId = productId
            self.productOfferDetails = productOfferDetails
        }

        /// Consumed: it can be bought again, and is not consumed twice.
        public var isConsumed: Bool { productOfferDetails?.consumptionState == "CONSUMPTION_STATE_CONSUMED" }
    }

    public struct StateContext: Codable, Hashable, Sendable {
        /// `PURCHASED`, `PENDING` or `CANCELLED`.
        public var purchaseState: String?

        public init(purchaseState: String?) { self.purchaseState = purchaseState }
    }

    public struct TestContext: Codable, Hashable, Sendable {
        /// `TEST` for a licence tester's purchase.
        public var fopType: String?

        public init(fopType: String?) { self.fopType = fopType }
    }

    public var kind: String?
    public var productLineItem: [LineItem]
    public var purchaseStateContext: StateContext?
    public var testPurchaseContext: TestContext?
    /// Google's order id (`GPA.1234-5678-9012-34567`): unique per payment.
    public var orderId: String?
    /// The app's account id given at purchase: binds the purchase to an account.
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    /// RFC 3339, set once paid.
    public var purchaseCompletionTime: String?
    /// `ACKNOWLEDGEMENT_STATE_PENDING` or `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    public var acknowledgementState: String?

    public init(
        productLineItem: [LineItem], purchaseState: String?, orderId: String?,
        obfuscatedExternalAccountId: String? = nil, purchaseCompletionTime: String? = nil,
        acknowledgementState: String? = "ACKNOWLEDGEMENT_STATE_PENDING", test: Bool = false
    ) {
        self.kind = "androidpublisher#productPurchaseV2"
        self.productLineItem = productLineItem
        self.purchaseStateContext = StateContext(purchaseState: purchaseState)
        self.testPurchaseContext = test ? TestContext(fopType: "TEST") : nil
        self.orderId = orderId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.purchaseCompletionTime = purchaseCompletionTime
        self.acknowledgementState = acknowledgementState
    }

    enum CodingKeys: String, CodingKey {
        case kind, productLineItem, purchaseStateContext, testPurchaseContext, orderId, obfuscatedExternalAccountId
        case obfuscatedExternalProfileId, regionCode, purchaseCompletionTime, acknowledgementState
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        productLineItem = try container.decodeIfPresent([LineItem].self, forKey: .productLineItem) ?? []
        purchaseStateContext = try container.decodeIfPresent(StateContext.self, forKey: .purchaseStateContext)
        testPurchaseContext = try container.decodeIfPresent(TestContext.self, forKey: .testPurchaseContext)
        orderId = try container.decodeIfPresent(String.self, forKey: .orderId)
        obfuscatedExternalAccountId = try container.decodeIfPresent(String.self, forKey: .obfuscatedExternalAccountId)
        obfuscatedExternalProfileId = try container.decodeIfPresent(String.self, forKey: .obfuscatedExternalProfileId)
        regionCode = try container.decodeIfPresent(String.self, forKey: .regionCode)
        purchaseCompletionTime = try container.decodeIfPresent(String.self, forKey: .purchaseCompletionTime)
        acknowledgementState = try container.decodeIfPresent(String.self, forKey: .acknowledgementState)
    }

    /// Paid for: the only state that may credit.
    public var isPurchased: Bool { purchaseStateContext?.purchaseState == "PURCHASED" }
    /// Waiting for payment (cash, bank transfer): try again later.
    public var isPending: Bool { purchaseStateContext?.purchaseState == "PENDING" }
    public var isAcknowledged: Bool { acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" }
    /// A licence tester's purchase: no money moved.
    public var isTest: Bool { testPurchaseContext?.fopType == "TEST" }
}
