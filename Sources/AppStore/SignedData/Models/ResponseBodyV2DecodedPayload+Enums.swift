extension ResponseBodyV2DecodedPayload {
    /// [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
    public enum NotificationType: String, Hashable, Sendable, CaseIterable {
        case subscribed = "SUBSCRIBED"
        case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
        case offerRedeemed = "OFFER_REDEEMED"
        case didRenew = "DID_RENEW"
        case expired = "EXPIRED"
        case didFailToRenew = "DID_FAIL_TO_RENEW"
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        case priceIncrease = "PRICE_INCREASE"
        case refund = "REFUND"
        case refundDeclined = "REFUND_DECLINED"
        case consumptionRequest = "CONSUMPTION_REQUEST"
        case renewalExtended = "RENEWAL_EXTENDED"
        case revoke = "REVOKE"
        case test = "TEST"
        case renewalExtension = "RENEWAL_EXTENSION"
        case refundReversed = "REFUND_REVERSED"
        case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
        case oneTimeCharge = "ONE_TIME_CHARGE"
        // Added in March 2025 (notifications 2.15); the pipeline records them and acts on neither.
        case metadataUpdate = "METADATA_UPDATE"
        case migrate = "MIGRATE"
        // Notifications 2.19 (November 2025): consent withdrawn for the app (`appData`, no `data`).
        case rescindConsent = "RESCIND_CONSENT"
    }

    /// [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
    public enum Subtype: String, Hashable, Sendable, CaseIterable {
        case initialBuy = "INITIAL_BUY"
        case resubscribe = "RESUBSCRIBE"
        case downgrade = "DOWNGRADE"
        case upgrade = "UPGRADE"
        case autoRenewEnabled = "AUTO_RENEW_ENABLED"
        case autoRenewDisabled = "AUTO_RENEW_DISABLED"
        case voluntary = "VOLUNTARY"
        case billingRetry = "BILLING_RETRY"
        case priceIncrease = "PRICE_INCREASE"
        case gracePeriod = "GRACE_PERIOD"
        case pending = "PENDING"
        case accepted = "ACCEPTED"
        case billingRecovery = "BILLING_RECOVERY"
        case productNotForSale = "PRODUCT_NOT_FOR_SALE"
        case summary = "SUMMARY"
        case failure = "FAILURE"
        case unreported = "UNREPORTED"
    }
}
