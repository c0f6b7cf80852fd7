import Foundation
import PipelineCore
import StorePlugins

// MARK: - Real-time developer notifications: what a notice announces, read back from Google

extension GooglePlayVerifier {
    /// A notice Google pushed, made the notification the fulfiller applies: the purchase it
    /// names is read again from the Developer API (the notice itself says only that
    /// something changed), and carried with Google's name of what happened. A voided
    /// purchase is its own news: it names the order, and the API has nothing more on it.
    ///
    /// Google's failures and quotas retry, as for a purchase. A notice that announces a
    /// purchase (`*_PURCHASED`) whose purchase does not hold is rejected with the reason;
    /// any other notice about such a purchase is recorded with no transaction.
    func verify(_ notice: GoogleNotice) async -> VerificationOutcome {
        // A stored notice that no longer decodes arrives empty.
        guard !notice.messageID.isEmpty else { return .rejected(reason: "google_notice_unreadable") }
        guard configuration.packageNames.isEmpty || configuration.packageNames.contains(notice.packageName) else {
            return .rejected(reason: "google_play_unknown_package")
        }
        var notification = StoreNotification(
            notificationUUID: notice.messageID, type: notice.typeName, signedDate: notice.eventTime)
        if notice.kind == .pendingRefundReview, let order = notice.orderID {
            // Google asks about an order: the one it names is the transaction credited for it
            // (its product is what the ledger recorded), and no money moves until a refund does.
            notification.transaction = VerifiedTransaction(
                transactionID: order, originalTransactionID: notice.purchaseToken ?? order, productID: "")
            return .notification(notification)
        }
        guard let token = notice.purchaseToken else { return .notification(notification) }
        switch notice.kind {
        case .test, .pendingRefundReview:
            return .notification(notification)
        case .voidedPurchase:
            // The push is a hint: Google's list of voided purchases, read back, is the truth, and
            // its date the refund's. One not listed yet moves nothing now; the voided poll takes
            // it back once Google lists it.
            let listed: VoidedPurchase?
            do {
                listed = try await listedVoided(notice, token: token)
            } catch {
                return Self.outcome(error)
            }
            guard let listed, let voidedAt = listed.voidedTimeMillis.flatMap(Int64.init) else {
                notification.subtype = "NOT_LISTED"
                return .notification(notification)
            }
            var voided = VerifiedTransaction(
                transactionID: Self.transactionID(order: listed.orderId ?? notice.orderID, token: token),
                originalTransactionID: token, productID: notice.productID ?? "",
                cancellationDate: Date(timeIntervalSince1970: Double(voidedAt) / 1000))
            if notice.refundType == Self.quantityBasedPartialRefund {
                // The notice does not say how many units: the purchase's refundable quantity does.
                do {
                    let purchase = try await client.productPurchase(packageName: notice.packageName, token: token)
                    guard let units = Self.refundedUnits(purchase, productID: notice.productID) else {
                        return .transient(reason: "google_play_partial_refund_unread")
                    }
                    voided.productID = units.productID
                    voided.quantity = units.quantity
                    voided.refundedQuantity = units.refunded < units.quantity ? units.refunded : nil
                } catch {
                    return Self.outcome(error)
                }
            }
            notification.transaction = voided
            return .notification(notification)
        case .subscription, .oneTimeProduct:
            break
        }
        let read: VerificationOutcome
        do {
            if notice.kind == .subscription {
                let subscription = try await client.subscriptionPurchase(packageName: notice.packageName, token: token)
                let product = notice.productID ?? subscription.lineItems.first?.productId ?? ""
                read = outcome(subscription, GooglePlayPurchase(notice, productID: product, token: token))
                if notice.typeName == "SUBSCRIPTION_IN_GRACE_PERIOD" {
                    notification.subtype = "GRACE_PERIOD"
                    notification.gracePeriodExpiresDate =
                        subscription.lineItems.first { $0.productId == product }?.expiryTime.flatMap(Self.date)
                }
            } else {
                let purchase = try await client.productPurchase(packageName: notice.packageName, token: token)
                let product = notice.productID ?? purchase.productLineItem.first?.productId ?? ""
                read = outcome(purchase, GooglePlayPurchase(notice, productID: product, token: token))
            }
        } catch {
            return Self.outcome(error)
        }
        switch await priced(read, packageName: notice.packageName) {
        case .valid(let environment, let transactions):
            notification.environment = environment
            notification.transaction = transactions.first
            return .notification(notification)
        case .rejected(let reason) where notice.typeName.hasSuffix("_PURCHASED"):
            return .rejected(reason: reason)
        case .rejected:
            // Nothing to apply: recorded, with no transaction.
            return .notification(notification)
        default:
            return read
        }
    }
}

extension GooglePlayVerifier {
    /// RTDN `refundType` 2: some units of a multi-unit purchase were refunded.
    static let quantityBasedPartialRefund = 2

    /// The voided purchase Google lists for the notice's token (and order, when it names one),
    /// read from the Voided Purchases API over the day before the notice up to now; nil when
    /// it is not listed (yet).
    func listedVoided(_ notice: GoogleNotice, token: String) async throws(StoreCallError) -> VoidedPurchase? {
        let end = Date()
        let start = min(notice.eventTime ?? end, end).addingTimeInterval(-86_400)
        var pageToken: String?
        // Google lists at most 1,000 a page; a day of one app's refunds fits in a few.
        for _ in 0..<20 {
            let page = try await client.voidedPurchases(
                packageName: notice.packageName, start: start, end: end, pageToken: pageToken)
            if let found = page.voidedPurchases.first(where: {
                $0.purchaseToken == token && (notice.orderID == nil || $0.orderId == notice.orderID)
            }) {
                return found
            }
            guard let next = page.tokenPagination?.nextPageToken, next != pageToken else { return nil }
            pageToken = next
        }
        return nil
    }

    /// How many of a purchase's units were refunded so far (its quantity less what is still
    /// refundable); nil when the purchase shows none refunded (Google has not caught up).
    public static func refundedUnits(_ purchase: ProductPurchaseV2, productID: String?)
        -> (productID: String, quantity: Int, refunded: Int)?
    {
        guard
            let item = purchase.productLineItem.first(where: { productID == nil || $0.productId == productID }),
            let offer = item.productOfferDetails
        else { return nil }
        let quantity = max(1, offer.quantity ?? 1)
        let refunded = quantity - min(quantity, max(0, offer.refundableQuantity ?? quantity))
        return refunded > 0 ? (item.productId, quantity, refunded) : nil
    }
}

extension GooglePlayPurchase {
    init(_ notice: GoogleNotice, productID: String, token: String) {
        self.init(packageName: notice.packageName, productID: productID, purchaseToken: token)
    }
}
