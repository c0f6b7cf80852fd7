import Foundation
import PipelineCore

/// What RVS's `verifyReceiptId` answers about one receipt (version 1.0): the members the
/// pipeline reads, dates as Amazon gives them (milliseconds since 1970).
/// https://developer.amazon.com/docs/in-app-purchasing/iap-rvs-for-android-apps.html
public struct AmazonReceipt: Sendable, Hashable {
    public enum ProductType: String, Sendable {
        case consumable = "CONSUMABLE"
        case entitled = "ENTITLED"
        case subscription = "SUBSCRIPTION"
    }

    public var receiptID: String
    public var productID: String
    public var productType: ProductType
    public var purchaseDate: Date?
    /// When it was cancelled: a refund of a consumable or entitlement, the end of a subscription.
    public var cancelDate: Date?
    /// Amazon's `cancelReason` (0 unknown, 1 by the customer, 2 by Amazon or a failed payment).
    public var cancelReason: Int?
    /// A subscription's next renewal: the end of the period it has paid for.
    public var renewalDate: Date?
    public var freeTrialEndDate: Date?
    public var gracePeriodEndDate: Date?
    /// How many of a consumable were bought at once (1 when Amazon says nothing).
    public var quantity: Int
    /// A purchase of Live App Testing (`testTransaction`) or of a beta product.
    public var isTest: Bool

    public init(
        receiptID: String, productID: String, productType: ProductType, purchaseDate: Date? = nil,
        cancelDate: Date? = nil, cancelReason: Int? = nil, renewalDate: Date? = nil, freeTrialEndDate: Date? = nil,
        gracePeriodEndDate: Date? = nil, quantity: Int = 1, isTest: Bool = false
    ) {
        self.receiptID = receiptID
        self.productID = productID
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.cancelDate = cancelDate
        self.cancelReason = cancelReason
        self.renewalDate = renewalDate
        self.freeTrialEndDate = freeTrialEndDate
        self.gracePeriodEndDate = gracePeriodEndDate
        self.quantity = quantity
        self.isTest = isTest
    }

    /// RVS's JSON answer read; nil when a member the pipeline needs is missing or of another
    /// type (`receiptId`, `productId`, a known `productType`, dates as numbers or null).
    public init?(json: [String: Any]) {
        guard let receipt = json["receiptId"] as? String, !receipt.isEmpty,
            let product = json["productId"] as? String, !product.isEmpty,
            let type = (json["productType"] as? String).flatMap(ProductType.init(rawValue:))
        else { return nil }
        var dates: [String: Date] = [:]
        for name in ["purchaseDate", "cancelDate", "renewalDate", "freeTrialEndDate", "gracePeriodEndDate"] {
            switch json[name] {
            case nil, is NSNull: continue
            case let number as NSNumber where !(number is Bool) && number.int64Value > 0:
                dates[name] = Date(timeIntervalSince1970: Double(number.int64Value) / 1000)
            default: return nil
            }
        }
        let quantity: Int
        switch json["quantity"] {
        case nil, is NSNull: quantity = 1
        case let number as NSNumber where (1...100_000).contains(number.intValue): quantity = number.intValue
        default: return nil
        }
        self.init(
            receiptID: receipt, productID: product, productType: type, purchaseDate: dates["purchaseDate"],
            cancelDate: dates["cancelDate"], cancelReason: (json["cancelReason"] as? NSNumber)?.intValue,
            renewalDate: dates["renewalDate"], freeTrialEndDate: dates["freeTrialEndDate"],
            gracePeriodEndDate: dates["gracePeriodEndDate"], quantity: quantity,
            isTest: json["testTransaction"] as? Bool == true || json["betaProduct"] as? Bool == true)
    }

    /// The answer as RVS writes it (what the stub store sends).
    public var json: [String: Any] {
        func millis(_ date: Date?) -> Any {
            date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? NSNull()
        }
        return [
            "receiptId": receiptID, "productId": productID, "productType": productType.rawValue,
            "purchaseDate": millis(purchaseDate), "cancelDate": millis(cancelDate),
            "cancelReason": cancelReason.map { $0 as Any } ?? NSNull(), "renewalDate": millis(renewalDate),
            "freeTrialEndDate": millis(freeTrialEndDate), "gracePeriodEndDate": millis(gracePeriodEndDate),
            "quantity": quantity, "testTransaction": isTest, "betaProduct": false, "autoRenewing": false,
            "deferredDate": NSNull(), "deferredSku": NSNull(), "parentProductId": NSNull(), "term": NSNull(),
            "termSku": NSNull(), "promotions": NSNull(),
        ]
    }
}
