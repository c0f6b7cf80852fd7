import Database
import Foundation
import Repositories
import SettlementWriter

/// A `POST /v1/orders` body: `account_id`, `product_id`, optional `app_account_token`. Pure.
struct OrderRequest: Equatable, Sendable {
    static let fields: Set<String> = ["account_id", "product_id", "app_account_token"]

    let order: NewOrder

    init(json: some Collection<UInt8>) throws(APIError) {
        let object = try JSONFields.object(json, allowed: Self.fields)
        let accountID = try JSONFields.identifier(object, "account_id", required: true)!
        let productID = try JSONFields.productID(object, required: true)!
        let token = try JSONFields.string(object, "app_account_token")
        if let token, !JSONFields.isUUID(token) {
            throw APIError.invalid(
                "invalid_app_account_token", "app_account_token must be a UUID", field: "app_account_token")
        }
        // The nil UUID is every app's default: StoreKit sends no token rather than it.
        if let token, token.allSatisfy({ $0 == "0" || $0 == "-" }) {
            throw APIError.invalid(
                "invalid_app_account_token", "app_account_token must not be the nil UUID", field: "app_account_token")
        }
        order = NewOrder(accountID: accountID, productID: productID, appAccountToken: token?.lowercased())
    }
}

/// A `POST /v1/orders/{id}/cancel` body (optional): `account_id` to check the order is
/// theirs, `reason` for the record.
struct CancelRequest: Equatable, Sendable {
    static let fields: Set<String> = ["account_id", "reason"]

    let accountID: String?
    let reason: String?

    init(json: some Collection<UInt8>) throws(APIError) {
        guard !json.isEmpty else {
            accountID = nil
            reason = nil
            return
        }
        let object = try JSONFields.object(json, allowed: Self.fields)
        accountID = try JSONFields.identifier(object, "account_id", required: false)
        reason = try JSONFields.text(object, "reason", maximum: 500)
    }
}
