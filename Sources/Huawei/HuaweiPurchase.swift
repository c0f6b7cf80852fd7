import Foundation
import PipelineCore
import StorePlugins

/// A purchase a backend posted as the `huawei` member of `POST /v1/receipts`:
///
/// ```json
/// {"product_id": "coins_100", "purchase_token": "…", "type": "consumable"}
/// {"product_id": "vip_monthly", "purchase_token": "…", "type": "subscription", "subscription_id": "…"}
/// ```
///
/// Kept as canonical JSON in ``StoreEvidence/payload`` (kind `purchase`), so the same
/// purchase posted twice is the same payload.
public struct HuaweiPurchase: Sendable, Hashable {
    /// What Huawei sells: each kind is verified by its own service.
    public enum Kind: String, Sendable, CaseIterable {
        case consumable
        case nonConsumable = "non_consumable"
        case subscription

        /// Huawei's `kind` in purchase data.
        var huaweiKind: Int {
            switch self {
            case .consumable: 0
            case .nonConsumable: 1
            case .subscription: 2
            }
        }
    }

    public var productID: String
    public var purchaseToken: String
    public var kind: Kind
    /// Huawei's subscription id: set for (and only for) subscriptions.
    public var subscriptionID: String?

    public init(productID: String, purchaseToken: String, kind: Kind, subscriptionID: String? = nil) {
        self.productID = productID
        self.purchaseToken = purchaseToken
        self.kind = kind
        self.subscriptionID = subscriptionID
    }

    static let member = "huawei"
    static let members: Set<String> = ["product_id", "purchase_token", "type", "subscription_id"]

    /// Checks the member's value (JSON as `JSONSerialization` reads it).
    /// - Throws: ``StoreInputError`` naming `huawei.<member>`.
    public init(member value: Any) throws(StoreInputError) {
        let object = try StoreInput.object(value, member: Self.member, allowed: Self.members)
        let product = try StoreInput.string(object, "product_id", in: Self.member, maxLength: 256)!
        let token = try StoreInput.string(object, "purchase_token", in: Self.member, maxLength: 4096)!
        let type = try StoreInput.string(object, "type", in: Self.member, maxLength: 32)!
        guard let kind = Kind(rawValue: type) else {
            throw .invalid(
                "invalid_field", "huawei.type must be consumable, non_consumable or subscription", member: "huawei.type"
            )
        }
        let subscription = try StoreInput.string(
            object, "subscription_id", in: Self.member, required: kind == .subscription, maxLength: 256)
        if kind != .subscription, subscription != nil {
            throw .invalid(
                "invalid_field", "huawei.subscription_id is only for subscriptions", member: "huawei.subscription_id")
        }
        self.init(productID: product, purchaseToken: token, kind: kind, subscriptionID: subscription)
    }

    /// The canonical JSON kept as the evidence's payload.
    public var payload: String {
        var members = ["product_id": productID, "purchase_token": purchaseToken, "type": kind.rawValue]
        if let subscriptionID { members["subscription_id"] = subscriptionID }
        return StoreInput.canonicalJSON(members)
    }

    /// The purchase a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let members = StoreInput.members(payload), let product = members["product_id"],
            let token = members["purchase_token"], let kind = members["type"].flatMap(Kind.init(rawValue:)),
            (kind == .subscription) == (members["subscription_id"] != nil)
        else { return nil }
        self.init(productID: product, purchaseToken: token, kind: kind, subscriptionID: members["subscription_id"])
    }
}

/// What a consumable's credit owes Huawei: the confirmation of its delivery, as canonical
/// JSON in ``VerifiedTransaction/confirmation``.
public struct HuaweiConfirmation: Sendable, Hashable {
    public var productID: String
    public var purchaseToken: String

    public init(productID: String, purchaseToken: String) {
        self.productID = productID
        self.purchaseToken = purchaseToken
    }

    public var json: String {
        StoreInput.canonicalJSON(["product_id": productID, "purchase_token": purchaseToken, "type": "consume"])
    }

    public init?(json: String) {
        guard let members = StoreInput.members(json), members["type"] == "consume",
            let product = members["product_id"], let token = members["purchase_token"]
        else { return nil }
        self.init(productID: product, purchaseToken: token)
    }
}
