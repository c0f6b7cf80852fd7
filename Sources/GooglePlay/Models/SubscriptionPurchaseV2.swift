import Foundation

/// A subscription as `purchases.subscriptionsv2.get` answers it: its state, and each line
/// item's product and end.
public struct SubscriptionPurchaseV2: Codable, Hashable, Sendable {
    public struct LineItem: Codable, Hashable, Sendable {
        public var productId: String
        /// RFC 3339: when this item's access ends.
        public var expiryTime: String?
        /// The order of this item's latest payment (`GPA.…..0` for the first, `..1` for a renewal).
        public var latestSuccessfulOrderId: String?
        /// The base plan and, for a discounted offer, the offer it was bought with.
        public var offerDetails: OfferDetails?

        public init(
            productId: String, expiryTime: String?, latestSuccessfulOrderId: String?, offerDetails: OfferDetails? = nil
        ) {
            self.productId = productId
            self.expiryTime = expiryTime
            self.latestSuccessfulOrderId = latestSuccessfulOrderId
            self.offerDetails = offerDetails
        }
    }

    /// `OfferDetails`: `offerId` only for a discounted offer (a free trial, an introductory price).
    public struct OfferDetails: Codable, Hashable, Sendable {
        public var basePlanId: String?
        public var offerId: String?

        public init(basePlanId: String?, offerId: String?) {
            self.basePlanId = basePlanId
            self.offerId = offerId
        }
    }

    public struct ExternalAccountIdentifiers: Codable, Hashable, Sendable {
        public var obfuscatedExternalAccountId: String?

        public init(obfuscatedExternalAccountId: String?) {
            self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        }
    }

    public var kind: String?
    /// `SUBSCRIPTION_STATE_ACTIVE`, `_IN_GRACE_PERIOD`, `_ON_HOLD`, `_PAUSED`, `_CANCELED`,
    /// `_EXPIRED`, `_PENDING`, `_PENDING_PURCHASE_CANCELED`.
    public var subscriptionState: String?
    /// Deprecated by Google (May 2025, gone after August 2027) for each line item's
    /// `latestSuccessfulOrderId`: read only when an item has none.
    public var latestOrderId: String?
    /// The token this one replaced (an upgrade, a resubscription): its access ends.
    public var linkedPurchaseToken: String?
    public var startTime: String?
    /// `ACKNOWLEDGEMENT_STATE_PENDING` or `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    public var acknowledgementState: String?
    public var externalAccountIdentifiers: ExternalAccountIdentifiers?
    public var lineItems: [LineItem]

    public init(
        subscriptionState: String?, latestOrderId: String?, lineItems: [LineItem], startTime: String? = nil,
        acknowledgementState: String? = "ACKNOWLEDGEMENT_STATE_PENDING", obfuscatedExternalAccountId: String? = nil,
        linkedPurchaseToken: String? = nil
    ) {
        self.kind = "androidpublisher#subscriptionPurchaseV2"
        self.subscriptionState = subscriptionState
        self.latestOrderId = latestOrderId
        self.lineItems = lineItems
        self.startTime = startTime
        self.acknowledgementState = acknowledgementState
        self.externalAccountIdentifiers = obfuscatedExternalAccountId.map {
            ExternalAccountIdentifiers(obfuscatedExternalAccountId: $0)
        }
        self.linkedPurchaseToken = linkedPurchaseToken
    }

    enum CodingKeys: String, CodingKey {
        case kind, subscriptionState, latestOrderId, linkedPurchaseToken, startTime, acknowledgementState
        case externalAccountIdentifiers, lineItems
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        subscriptionState = try container.decodeIfPresent(String.self, forKey: .subscriptionState)
        latestOrderId = try container.decodeIfPresent(String.self, forKey: .latestOrderId)
        linkedPurchaseToken = try container.decodeIfPresent(String.self, forKey: .linkedPurchaseToken)
        startTime = try container.decodeIfPresent(String.self, forKey: .startTime)
        acknowledgementState = try container.decodeIfPresent(String.self, forKey: .acknowledgementState)
        externalAccountIdentifiers = try container.decodeIfPresent(
            ExternalAccountIdentifiers.self, forKey: .externalAccountIdentifiers)
        lineItems = try container.decodeIfPresent([LineItem].self, forKey: .lineItems) ?? []
    }

    /// Access is due: active, or in its grace period.
    public var grantsAccess: Bool {
        subscriptionState == "SUBSCRIPTION_STATE_ACTIVE" || subscriptionState == "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    }
    public var isAcknowledged: Bool { acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" }
    /// On hold (a declined renewal past its grace period) or paused by the player: still the
    /// player's, but owed nothing until it recovers (what Play Billing Library 8.1 calls
    /// suspended; the API has no state of that name).
    public var isSuspended: Bool {
        subscriptionState == "SUBSCRIPTION_STATE_ON_HOLD" || subscriptionState == "SUBSCRIPTION_STATE_PAUSED"
    }
}
