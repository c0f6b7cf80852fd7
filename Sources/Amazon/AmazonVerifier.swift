import Foundation
import PipelineCore
import StorePlugins

/// Verifies Amazon Appstore purchases by asking RVS with the developer's shared secret: a
/// receipt is worth what RVS answers, never what a backend or a notification said.
///
/// A receipt becomes one ``VerifiedTransaction``, `amazon:<receiptId>` its original id whichever
/// path brought it (a posted purchase, a notification), so both credit it once. A
/// subscription's period is `amazon:<receiptId>@<renewalDate>` (RVS keeps one receipt across
/// renewals; each paid period is credited once). A consumable's or entitlement's `cancelDate`
/// is its refund; a subscription's is the end of its entitlement.
public struct AmazonVerifier: ReceiptVerifier {
    public let client: AmazonClient

    public init(client: AmazonClient) {
        self.client = client
    }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        guard evidence.store == AmazonStore.id else { return .rejected(reason: "not_amazon") }
        switch evidence.kind {
        case "purchase":
            guard let purchase = AmazonPurchase(payload: evidence.payload) else {
                return .rejected(reason: "amazon_unreadable")
            }
            return await verify(purchase)
        case StoreEvidence.notificationKind:
            guard let notice = AmazonNotice(payload: evidence.payload) else {
                return .rejected(reason: "amazon_notice_unreadable")
            }
            return await verify(notice: notice)
        default:
            return .rejected(reason: "amazon_unknown_evidence")
        }
    }

    func verify(_ purchase: AmazonPurchase) async -> VerificationOutcome {
        if let package = purchase.packageName, package != client.settings.packageName {
            return .rejected(reason: "amazon_other_app")
        }
        switch await read(userID: purchase.userID, receiptID: purchase.receiptID, client: client) {
        case .success(let receipt):
            return .valid(environment: environment(receipt), transactions: [Self.transaction(receipt)])
        case .failure(let failure):
            return failure.outcome
        }
    }

    /// A notification Amazon pushed, made the notification the fulfiller applies: the receipt is
    /// read back and RVS's answer is the truth. A cancellation RVS does not show (no
    /// `cancelDate`) is contradicted and moves nothing.
    func verify(notice: AmazonNotice) async -> VerificationOutcome {
        guard notice.packageName == client.settings.packageName else { return .rejected(reason: "amazon_other_app") }
        let receipt: AmazonReceipt
        switch await read(userID: notice.userID, receiptID: notice.receiptID, client: client.readingNotices) {
        case .success(let read): receipt = read
        case .failure(let failure): return failure.outcome
        }
        var transaction = Self.transaction(receipt)
        let kind = Self.kind(notice.type)
        switch kind {
        case .refund?, .expired?:
            guard
                receipt.cancelDate != nil || kind == .expired && (receipt.renewalDate ?? .distantFuture) <= client.now()
            else { return .rejected(reason: "amazon_notice_contradicted") }
        case .subscribed?, .didRenew?:
            guard receipt.cancelDate == nil else { return .rejected(reason: "amazon_notice_contradicted") }
        default:
            break
        }
        if kind == .expired { transaction.expiresDate = receipt.cancelDate ?? receipt.renewalDate }
        return .notification(
            StoreNotification(
                notificationUUID: notice.messageID, type: kind?.rawValue ?? notice.type,
                subtype: kind == nil ? nil : notice.type, environment: environment(receipt),
                signedDate: notice.timestamp, transaction: transaction))
    }

    /// The engine's kind an RTN type means; nil for the types it does not act on
    /// (recorded under Amazon's name).
    static func kind(_ type: String) -> StoreNotification.Kind? {
        switch type {
        case "CONSUMABLE_PURCHASED", "ENTITLEMENT_PURCHASED", "SUBSCRIPTION_PURCHASED": .subscribed
        case "SUBSCRIPTION_RENEWED", "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID": .didRenew
        case "CONSUMABLE_CANCELLED", "ENTITLEMENT_CANCELLED": .refund
        case "SUBSCRIPTION_CANCELLED", "SUBSCRIPTION_EXPIRED": .expired
        default: nil
        }
    }

    struct ReadFailure: Error {
        var outcome: VerificationOutcome
    }

    /// RVS's answer, checked to be about the receipt asked.
    func read(userID: String, receiptID: String, client: AmazonClient) async -> Result<AmazonReceipt, ReadFailure> {
        let receipt: AmazonReceipt
        do {
            receipt = try await client.verifyReceipt(userID: userID, receiptID: receiptID)
        } catch {
            return .failure(ReadFailure(outcome: Self.outcome(error)))
        }
        guard receipt.receiptID == receiptID else {
            return .failure(ReadFailure(outcome: .rejected(reason: "amazon_answer_mismatch")))
        }
        return .success(receipt)
    }

    func environment(_ receipt: AmazonReceipt) -> String {
        client.settings.sandbox || receipt.isTest ? "Sandbox" : "Production"
    }

    /// The transaction a receipt stands for.
    static func transaction(_ receipt: AmazonReceipt) -> VerifiedTransaction {
        let original = "amazon:" + receipt.receiptID
        switch receipt.productType {
        case .subscription:
            let period = receipt.renewalDate.map { "@\(Int64(($0.timeIntervalSince1970 * 1000).rounded()))" } ?? ""
            return VerifiedTransaction(
                transactionID: original + period, originalTransactionID: original, productID: receipt.productID,
                purchaseDate: receipt.purchaseDate, expiresDate: receipt.cancelDate ?? receipt.renewalDate,
                productType: "Auto-Renewable Subscription")
        case .consumable, .entitled:
            return VerifiedTransaction(
                transactionID: original, originalTransactionID: original, productID: receipt.productID,
                quantity: receipt.quantity, purchaseDate: receipt.purchaseDate, cancellationDate: receipt.cancelDate,
                productType: receipt.productType == .consumable ? "Consumable" : "Non-Consumable")
        }
    }

    static func outcome(_ error: StoreCallError) -> VerificationOutcome {
        switch (error.code, error.status) {
        case (.notFound, 410): .rejected(reason: "amazon_receipt_no_longer_valid")
        case (.notFound, _): .rejected(reason: "amazon_invalid_receipt")
        case (.invalidRequest, 497): .rejected(reason: "amazon_invalid_user")
        case (.invalidRequest, _): .rejected(reason: "amazon_invalid_request")
        case (.rateLimited, _): .transient(reason: "amazon_rate_limited", retryAfter: error.retryAfter)
        // 496: our shared secret is refused, an operator's fix: retried, then dead-lettered.
        case (.unauthorized, _): .transient(reason: "amazon_invalid_shared_secret")
        case (.unavailable, _): .transient(reason: "amazon_unavailable", retryAfter: error.retryAfter)
        case (.malformedResponse, _): .transient(reason: "amazon_malformed_response")
        case (.overBudget, _): .deferred(reason: "amazon_budget", retryAfter: error.retryAfter ?? .seconds(1))
        }
    }
}
