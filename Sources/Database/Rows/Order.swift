import Foundation
import PipelineCore

/// A row of `orders`: a purchase the server allowed before the app asked Apple for it.
package struct Order: Codable, Hashable, Sendable, Identifiable {
    package var id: String
    package var accountID: String
    /// The catalog product ordered.
    package var productID: String
    /// The Apple product id the app was told to buy.
    package var appleProductID: String
    package var appAccountToken: String
    package var firstPurchase: Bool
    package var status: OrderStatus
    package var createdAt: Date
    package var expiresAt: Date
    package var closedAt: Date?
    package var closeReason: String?
    package var receiptID: String?
    package var transactionID: String?
    package var creditedProductID: String?

    package init(
        id: String, accountID: String, productID: String, appleProductID: String, appAccountToken: String,
        firstPurchase: Bool, status: OrderStatus, createdAt: Date, expiresAt: Date, closedAt: Date? = nil,
        closeReason: String? = nil, receiptID: String? = nil, transactionID: String? = nil,
        creditedProductID: String? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.productID = productID
        self.appleProductID = appleProductID
        self.appAccountToken = appAccountToken
        self.firstPurchase = firstPurchase
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.closedAt = closedAt
        self.closeReason = closeReason
        self.receiptID = receiptID
        self.transactionID = transactionID
        self.creditedProductID = creditedProductID
    }

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case productID = "product_id"
        case appleProductID = "apple_product_id"
        case appAccountToken = "app_account_token"
        case firstPurchase = "first_purchase"
        case status
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case closedAt = "closed_at"
        case closeReason = "close_reason"
        case receiptID = "receipt_id"
        case transactionID = "transaction_id"
        case creditedProductID = "credited_product_id"
    }

    /// An open order past its time is expired, whether or not a sweep has said so yet.
    package func status(at now: Date) -> OrderStatus {
        status == .open && expiresAt <= now ? .expired : status
    }
}

/// Where an order is.
public enum OrderStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Made; the app may buy.
    case open
    /// Paid with the product ordered.
    case fulfilled
    /// Paid, but Apple's product differs from the order's: Apple's product was credited.
    case mismatched
    /// Closed by the player or the backend (the purchase failed or was abandoned).
    case cancelled
    /// Not paid in time.
    case expired

    /// Paid either way: these count towards daily limits and first purchases.
    public var isPaid: Bool { self == .fulfilled || self == .mismatched }
}

/// A row of `app_account_tokens`: a StoreKit 2 `appAccountToken` and its account.
package struct AppAccountToken: Codable, Hashable, Sendable {
    /// The app whose account it names (``AppScope/key``): a token is one app's, and another
    /// app's purchase carrying it binds nothing (schema v18 keys it by the app).
    package var app: String
    package var token: String
    package var accountID: String
    package var createdAt: Date

    package init(app: String, token: String, accountID: String, createdAt: Date) {
        self.app = app
        self.token = token
        self.accountID = accountID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case app, token
        case accountID = "account_id"
        case createdAt = "created_at"
    }
}

extension AppAccountToken {
    /// `accountID`'s token, kept under its app.
    package init(_ accountID: String, token: String, createdAt: Date) {
        self.init(app: AppScope.key(ofStored: accountID), token: token, accountID: accountID, createdAt: createdAt)
    }
}
