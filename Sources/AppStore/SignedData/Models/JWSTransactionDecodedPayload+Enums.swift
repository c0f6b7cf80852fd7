extension JWSTransactionDecodedPayload {
    /// [type](https://developer.apple.com/documentation/appstoreserverapi/type)
    public enum ProductType: String, Hashable, Sendable, CaseIterable {
        case autoRenewableSubscription = "Auto-Renewable Subscription"
        case nonConsumable = "Non-Consumable"
        case consumable = "Consumable"
        case nonRenewingSubscription = "Non-Renewing Subscription"
    }

    /// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
    public enum InAppOwnershipType: String, Hashable, Sendable, CaseIterable {
        case familyShared = "FAMILY_SHARED"
        case purchased = "PURCHASED"
    }

    /// [revocationReason](https://developer.apple.com/documentation/appstoreserverapi/revocationreason)
    public enum RevocationReason: Int, Hashable, Sendable, CaseIterable {
        case refundedForOtherReason = 0
        case refundedDueToIssue = 1
    }

    /// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
    public enum OfferType: Int, Hashable, Sendable, CaseIterable {
        case introductoryOffer = 1
        case promotionalOffer = 2
        case offerCode = 3
        case winBackOffer = 4
    }

    /// [transactionReason](https://developer.apple.com/documentation/appstoreserverapi/transactionreason)
    public enum TransactionReason: String, Hashable, Sendable, CaseIterable {
        case purchase = "PURCHASE"
        case renewal = "RENEWAL"
    }

    /// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
    public enum OfferDiscountType: String, Hashable, Sendable, CaseIterable {
        case freeTrial = "FREE_TRIAL"
        case payAsYouGo = "PAY_AS_YOU_GO"
        case payUpFront = "PAY_UP_FRONT"
        case oneTime = "ONE_TIME"
    }
}
