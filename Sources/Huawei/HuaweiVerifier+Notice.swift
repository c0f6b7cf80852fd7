import Foundation
import PipelineCore

// MARK: - Server notifications: what a notice announces, read back from Huawei

extension HuaweiVerifier {
    /// A notice Huawei pushed, made the notification the fulfiller applies: the purchase it
    /// names is read again (the Subscription service for subscriptions, the Order service for
    /// orders) and its signed data is the truth; the notice only says what happened.
    ///
    /// Renewals become `DID_RENEW`, a first purchase `SUBSCRIBED`, refunds `REFUND`, a
    /// cancellation by Huawei `REVOKE` (`REFUND` when the purchase reads as refunded), an
    /// expired subscription on hold `EXPIRED`; Huawei's own type stays in `subtype`. Any other
    /// type is recorded under Huawei's name. Huawei's failures retry, as for a purchase; a
    /// notice whose purchase cannot be read back is recorded with no transaction, unless it
    /// announces a purchase, which is then rejected with the reason.
    ///
    /// The notice is a hint: a refund or cancellation is what the signed purchase data says,
    /// with Huawei's own date (`cancelTime`), never the notice's word or its `notifyTime`. A
    /// notice of a refund whose purchase reads as still purchased takes nothing back.
    func verify(_ notice: HuaweiNotice) async -> VerificationOutcome {
        let kind = Self.kind(notice)
        var notification = StoreNotification(
            notificationUUID: notice.messageID, type: kind?.rawValue ?? notice.typeName,
            subtype: kind == nil ? nil : notice.typeName, environment: Self.environment(notice.environment),
            signedDate: notice.notifyTime)
        let purchase: HuaweiPurchase
        switch notice.event {
        case .subscription:
            purchase = HuaweiPurchase(
                productID: notice.productID ?? "", purchaseToken: notice.purchaseToken, kind: .subscription,
                subscriptionID: notice.subscriptionID)
        case .order:
            // Whether it was a consumable is not in the notice; the Order service's data says.
            purchase = HuaweiPurchase(
                productID: notice.productID ?? "", purchaseToken: notice.purchaseToken, kind: .nonConsumable)
        }
        let data: HuaweiPurchaseData
        switch await read(purchase) {
        case .success(let read):
            data = read
        case .failure(let failure):
            guard case .rejected = failure.outcome, kind != .subscribed else { return failure.outcome }
            return .notification(notification)
        }
        var named = purchase
        if notice.event == .order { named.kind = data.kind == 0 ? .consumable : .nonConsumable }
        if named.productID.isEmpty, let product = data.productId { named.productID = product }
        if let refusal = Self.mismatch(data, named) { return refusal }
        var transaction = Self.transaction(data, named)
        // A notice is applied once; what a consumable owes Huawei is owed by its purchase's credit.
        transaction.confirmation = nil
        switch kind {
        case .refund, .revoke:
            if data.purchaseState == HuaweiPurchaseData.refunded { notification.rawType = "REFUND" }
            // Signed data that says cancelled but names no time: cancelled as of this reading.
            // Data that says it is still bought leaves no date, and the engine takes nothing
            // back (`not_cancelled_by_store`).
            if data.isCancelled { transaction.cancellationDate = transaction.cancellationDate ?? Date() }
        case .subscribed where data.purchaseState != HuaweiPurchaseData.purchased:
            return Self.refusal(data, named) ?? .rejected(reason: "huawei_unknown_state")
        default:
            break
        }
        notification.environment = notification.environment ?? (data.isSandbox ? "Sandbox" : "Production")
        notification.transaction = transaction
        return .notification(notification)
    }

    /// The engine's kind a Huawei type means; nil for the types it does not act on.
    static func kind(_ notice: HuaweiNotice) -> StoreNotification.Kind? {
        switch notice.typeName {
        case "PAYMENT_SUCCESS", "INITIAL_BUY": .subscribed
        case "RENEWAL", "INTERACTIVE_RENEWAL", "RENEWAL_RECURRING": .didRenew
        case "REFUND_SUCCESS": .refund
        case "CANCEL": .revoke
        case "ON_HOLD": .expired
        default: nil
        }
    }

    /// Huawei's `PROD` / `Sandbox` in the pipeline's words.
    static func environment(_ huawei: String?) -> String? {
        switch huawei?.lowercased() {
        case "prod": "Production"
        case "sandbox": "Sandbox"
        default: nil
        }
    }
}
