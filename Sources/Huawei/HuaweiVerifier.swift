import Foundation
import PipelineCore
import StorePlugins

/// Verifies Huawei purchases by reading them back from Huawei's IAP servers and checking
/// the purchase data's signature with the app's IAP public key: a token is worth what
/// Huawei signs, never what the backend sent.
///
/// Consumables and non-consumables are read from the Order service, subscriptions from the
/// Subscription service. A purchase becomes one ``VerifiedTransaction``: `huawei:<orderId>`
/// its id (a subscription's renewals each have their own order), `huawei:<subscriptionId>`
/// or `huawei:<purchaseToken>` its original id; a consumable's carries the confirmation its
/// credit owes Huawei. Pending payments retry; cancelled or refunded purchases, unknown
/// tokens, forged signatures and another product than the one named are rejected; Huawei's
/// failures and flow control retry.
public struct HuaweiVerifier: ReceiptVerifier {
    public let client: HuaweiClient
    public var key: HuaweiPublicKey { client.settings.publicKey }

    public init(client: HuaweiClient) {
        self.client = client
    }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        guard evidence.store == HuaweiStore.id else {
            return .rejected(reason: "not_huawei")
        }
        switch evidence.kind {
        case "purchase":
            guard let purchase = HuaweiPurchase(payload: evidence.payload) else {
                return .rejected(reason: "huawei_unreadable")
            }
            return await verify(purchase)
        case "notification":
            guard let notice = HuaweiNotice(payload: evidence.payload) else {
                return .rejected(reason: "huawei_notice_unreadable")
            }
            // Read back in the notices' own budget: a flood of notices never delays a purchase.
            return await HuaweiVerifier(client: client.readingNotices).verify(notice)
        default:
            return .rejected(reason: "huawei_unknown_evidence")
        }
    }

    func verify(_ purchase: HuaweiPurchase) async -> VerificationOutcome {
        let data: HuaweiPurchaseData
        switch await read(purchase) {
        case .success(let read): data = read
        case .failure(let failure): return failure.outcome
        }
        if let refusal = Self.refusal(data, purchase) { return refusal }
        return .valid(
            environment: data.isSandbox ? "Sandbox" : "Production", transactions: [Self.transaction(data, purchase)])
    }

    /// The purchase data Huawei signed for `purchase`, or the outcome that stops it.
    func read(_ purchase: HuaweiPurchase) async -> Result<HuaweiPurchaseData, ReadFailure> {
        let signed: HuaweiSignedPurchase
        do {
            if let subscription = purchase.subscriptionID {
                signed = try await client.subscription(
                    subscriptionID: subscription, purchaseToken: purchase.purchaseToken)
            } else {
                signed = try await client.verifyOrder(
                    productID: purchase.productID, purchaseToken: purchase.purchaseToken)
            }
        } catch {
            return .failure(ReadFailure(Self.outcome(error)))
        }
        guard let data = signed.verified(by: key) else {
            return .failure(ReadFailure(.rejected(reason: "huawei_bad_signature")))
        }
        return .success(data)
    }

    struct ReadFailure: Error {
        var outcome: VerificationOutcome
        init(_ outcome: VerificationOutcome) { self.outcome = outcome }
    }

    /// Why signed purchase data does not credit `purchase`; nil when it does.
    static func refusal(_ data: HuaweiPurchaseData, _ purchase: HuaweiPurchase) -> VerificationOutcome? {
        switch data.purchaseState {
        case HuaweiPurchaseData.purchased: break
        case HuaweiPurchaseData.pending, -1: return .transient(reason: "huawei_pending")
        case HuaweiPurchaseData.cancelled: return .rejected(reason: "huawei_cancelled")
        case HuaweiPurchaseData.refunded: return .rejected(reason: "huawei_refunded")
        default: return .rejected(reason: "huawei_unknown_state")
        }
        return mismatch(data, purchase)
    }

    /// Signed data about another purchase than the one named (a token replayed for a dearer product).
    static func mismatch(_ data: HuaweiPurchaseData, _ purchase: HuaweiPurchase) -> VerificationOutcome? {
        guard data.productId == purchase.productID else { return .rejected(reason: "huawei_product_mismatch") }
        if let token = data.purchaseToken, token != purchase.purchaseToken {
            return .rejected(reason: "huawei_token_mismatch")
        }
        if let kind = data.kind, kind != purchase.kind.huaweiKind { return .rejected(reason: "huawei_kind_mismatch") }
        if let subscription = purchase.subscriptionID, let signed = data.subscriptionId, signed != subscription {
            return .rejected(reason: "huawei_subscription_mismatch")
        }
        guard let order = data.orderId, !order.isEmpty else { return .rejected(reason: "huawei_no_order") }
        return nil
    }

    /// The original transaction id the purchase a notice names is recorded under (the
    /// subscription's id, else the purchase token), as ``transaction(_:_:)`` writes it.
    public static func originalTransactionID(of notice: HuaweiNotice) -> String {
        "huawei:" + (notice.subscriptionID ?? notice.purchaseToken)
    }

    /// The transaction signed purchase data stands for.
    static func transaction(_ data: HuaweiPurchaseData, _ purchase: HuaweiPurchase) -> VerifiedTransaction {
        let original = purchase.subscriptionID ?? purchase.purchaseToken
        let cancelled =
            data.purchaseState == HuaweiPurchaseData.refunded || data.purchaseState == HuaweiPurchaseData.cancelled
        return VerifiedTransaction(
            transactionID: "huawei:" + (data.orderId ?? ""), originalTransactionID: "huawei:" + original,
            productID: data.productId ?? purchase.productID,
            purchaseDate: HuaweiPurchaseData.date(data.purchaseTime),
            expiresDate: purchase.kind == .subscription ? HuaweiPurchaseData.date(data.expirationDate) : nil,
            cancellationDate: cancelled ? HuaweiPurchaseData.date(data.cancelTime) : nil,
            productType: productType(purchase.kind),
            confirmation: purchase.kind == .consumable
                ? HuaweiConfirmation(productID: purchase.productID, purchaseToken: purchase.purchaseToken).json : nil,
            priceMicros: data.priceMicros, currency: data.currency, country: data.country)
    }

    static func productType(_ kind: HuaweiPurchase.Kind) -> String {
        switch kind {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .subscription: "Auto-Renewable Subscription"
        }
    }

    static func outcome(_ error: StoreCallError) -> VerificationOutcome {
        switch error.code {
        case .notFound: .rejected(reason: "huawei_token_not_found")
        case .invalidRequest: .rejected(reason: "huawei_invalid_request")
        case .rateLimited: .transient(reason: "huawei_rate_limited", retryAfter: error.retryAfter)
        case .unauthorized: .transient(reason: "huawei_unauthorized")
        case .unavailable: .transient(reason: "huawei_unavailable", retryAfter: error.retryAfter)
        case .malformedResponse: .transient(reason: "huawei_malformed_response")
        // Not sent: no attempt spent, back when the budget has room.
        case .overBudget: .deferred(reason: "huawei_budget", retryAfter: error.retryAfter ?? .seconds(1))
        }
    }
}
