import GRDB
import PipelineCore

/// The order a receipt names, and which of the receipt's transactions paid it.
///
/// An order pays for one purchase: among the receipt's transactions never seen before
/// (not refunded, not a renewal of a subscription already bound), the one whose Apple
/// product is the ordered product's, else the first (a mismatch). An order already paid
/// binds nothing more.
struct OrderedPurchase {
    var order: Order
    /// The ordered product, if the catalog still sells it.
    var product: Product?
    var transactionID: String

    init?(receipt: Receipt, transactions: [VerifiedTransaction], catalog: Catalog, _ db: Database) throws {
        guard let id = receipt.orderID, let order = try Order.fetchOne(db, id: id), !order.status.isPaid else {
            return nil
        }
        let product = catalog.product(order.productID)
        var fresh: [VerifiedTransaction] = []
        for transaction in transactions where transaction.cancellationDate == nil {
            guard try !AppleTransaction.exists(db, id: transaction.transactionID),
                try PipelineDatabase.boundAccount(originalTransactionID: transaction.originalTransactionID, db) == nil
            else { continue }
            fresh.append(transaction)
        }
        let ordered = fresh.first { product?.appleProductIDs.contains($0.productID) == true }
        guard let paying = ordered ?? fresh.first else { return nil }
        self.order = order
        self.product = product
        self.transactionID = paying.transactionID
    }
}

/// `data.order` of a `receipt.credited` webhook.
struct OrderEventData: Encodable {
    var orderID: String
    var status: OrderStatus
    /// What the order asked for.
    var productID: String
    /// What was credited: Apple's product decides.
    var creditedProductID: String?
    var mismatched: Bool

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case status
        case productID = "product_id"
        case creditedProductID = "credited_product_id"
        case mismatched
    }

    init(_ order: Order) {
        orderID = order.id
        status = order.status
        productID = order.productID
        creditedProductID = order.creditedProductID
        mismatched = order.status == .mismatched
    }
}
