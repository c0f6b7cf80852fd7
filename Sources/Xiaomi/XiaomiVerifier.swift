import Foundation
import PipelineCore
import StorePlugins

/// Verifies Xiaomi orders by asking Xiaomi's order query with the app's own `AppSecret`: an
/// order is worth what Xiaomi signs, never what a backend or a notice said.
///
/// A paid order (`TRADE_SUCCESS`) becomes one ``VerifiedTransaction``: `xiaomi:<orderId>` its
/// id, whichever path brought it (a posted order, a notice), so both credit it once; the
/// `productCode` its product, `productCount` its quantity, `cpUserInfo` the account Xiaomi
/// names for it. Xiaomi tells developers to check the amount: `payFee` must be the catalog's
/// CNY price times the count. An unpaid order retries; an unknown one, another user's, a
/// forged answer or a wrong amount are refused; Xiaomi's failures retry.
public struct XiaomiVerifier: ReceiptVerifier {
    public let client: XiaomiClient
    public let catalog: Catalog

    public init(client: XiaomiClient, catalog: Catalog) {
        self.client = client
        self.catalog = catalog
    }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        let evidence = submission.evidence.storeEvidence
        guard evidence.store == XiaomiStore.id else { return .rejected(reason: "not_xiaomi") }
        switch evidence.kind {
        case "purchase":
            guard let order = XiaomiOrder(payload: evidence.payload) else {
                return .rejected(reason: "xiaomi_unreadable")
            }
            return await verify(order)
        case StoreEvidence.notificationKind:
            guard let notice = XiaomiOrderInfo(payload: evidence.payload) else {
                return .rejected(reason: "xiaomi_notice_unreadable")
            }
            return await verify(notice: notice)
        default:
            return .rejected(reason: "xiaomi_unknown_evidence")
        }
    }

    func verify(_ order: XiaomiOrder) async -> VerificationOutcome {
        guard order.appID == client.settings.appID else { return .rejected(reason: "xiaomi_other_app") }
        let info: XiaomiOrderInfo
        switch await read(cpOrderID: order.cpOrderID, uid: order.uid, client: client) {
        case .success(let read): info = read
        case .failure(let failure): return failure.outcome
        }
        if let named = order.orderID, named != info.orderID { return .rejected(reason: "xiaomi_order_mismatch") }
        if let refusal = refusal(info) { return refusal }
        return .valid(environment: "Production", transactions: [Self.transaction(info)])
    }

    /// A notice Xiaomi pushed, made the notification the fulfiller applies: the order is read
    /// back and must say what the notice said (Xiaomi's order id, amount, product, count); the
    /// answer, never the notice, is what is credited.
    func verify(notice: XiaomiOrderInfo) async -> VerificationOutcome {
        let info: XiaomiOrderInfo
        switch await read(cpOrderID: notice.cpOrderID, uid: notice.uid, client: client.readingNotices) {
        case .success(let read): info = read
        case .failure(let failure): return failure.outcome
        }
        guard info.orderID == notice.orderID, info.payFee == notice.payFee, info.productCode == notice.productCode,
            info.productCount == notice.productCount
        else { return .rejected(reason: "xiaomi_notice_contradicted") }
        if let refusal = refusal(info) { return refusal }
        return .notification(
            StoreNotification(
                notificationUUID: info.orderID, type: StoreNotification.Kind.subscribed.rawValue,
                subtype: "PAYMENT_SUCCESS", environment: "Production", signedDate: info.paidAt,
                transaction: Self.transaction(info)))
    }

    struct ReadFailure: Error {
        var outcome: VerificationOutcome
    }

    /// What Xiaomi signs about the order, checked to be the one asked about.
    func read(cpOrderID: String, uid: String, client: XiaomiClient) async -> Result<XiaomiOrderInfo, ReadFailure> {
        let answer: XiaomiAnswer
        do {
            answer = try await client.queryOrder(cpOrderID: cpOrderID, uid: uid)
        } catch {
            return .failure(ReadFailure(outcome: Self.outcome(error)))
        }
        guard answer.signatureHolds else {
            return .failure(ReadFailure(outcome: .rejected(reason: "xiaomi_bad_signature")))
        }
        guard let info = try? XiaomiOrderInfo(parameters: answer.parameters, member: "answer") else {
            return .failure(ReadFailure(outcome: .transient(reason: "xiaomi_malformed_response")))
        }
        guard info.appID == client.settings.appID, info.cpOrderID == cpOrderID, info.uid == uid else {
            return .failure(ReadFailure(outcome: .rejected(reason: "xiaomi_answer_mismatch")))
        }
        return .success(info)
    }

    /// Why Xiaomi's word does not credit the order; nil when it does.
    func refusal(_ info: XiaomiOrderInfo) -> VerificationOutcome? {
        switch info.orderStatus {
        case XiaomiOrderInfo.paid: break
        case XiaomiOrderInfo.unpaid: return .transient(reason: "xiaomi_unpaid")
        default: return .rejected(reason: "xiaomi_not_paid")
        }
        guard let product = catalog.products.first(where: { $0.storeProductIDs.contains(info.productCode) }) else {
            return nil  // the engine's: not recorded, credited once the catalog sells it
        }
        // A product the catalog prices in no CNY is an operator's fix: retried, then dead-lettered.
        guard let price = product.price(in: "CNY") else { return .transient(reason: "xiaomi_no_catalog_price") }
        let (due, overflow) = price.multipliedReportingOverflow(by: Int64(info.productCount))
        guard !overflow, due == info.payFee else { return .rejected(reason: "xiaomi_amount_mismatch") }
        return nil
    }

    /// The transaction a paid order stands for.
    static func transaction(_ info: XiaomiOrderInfo) -> VerifiedTransaction {
        VerifiedTransaction(
            transactionID: "xiaomi:" + info.orderID, originalTransactionID: "xiaomi:" + info.orderID,
            productID: info.productCode, quantity: info.productCount, purchaseDate: info.paidAt,
            productType: "Consumable", storeAccountID: info.cpUserInfo,
            // `payFee` is in fen, a hundredth of a yuan: 10,000 micros.
            priceMicros: info.payFee.multipliedReportingOverflow(by: 10_000).overflow ? nil : info.payFee * 10_000,
            currency: "CNY")
    }

    static func outcome(_ error: StoreCallError) -> VerificationOutcome {
        switch error.code {
        case .notFound: .rejected(reason: "xiaomi_order_not_found")
        case .invalidRequest: .rejected(reason: "xiaomi_invalid_request")
        case .rateLimited: .transient(reason: "xiaomi_rate_limited", retryAfter: error.retryAfter)
        case .unauthorized: .transient(reason: "xiaomi_unauthorized")
        case .unavailable: .transient(reason: "xiaomi_unavailable", retryAfter: error.retryAfter)
        case .malformedResponse: .transient(reason: "xiaomi_malformed_response")
        // Not sent: no attempt spent, back when the budget has room.
        case .overBudget: .deferred(reason: "xiaomi_budget", retryAfter: error.retryAfter ?? .seconds(1))
        }
    }
}
