import Database
import Foundation
import PipelineCore

/// A row of `receipts`: one receipt as the intake committed it, and where it is now.
struct Receipt: Codable, Hashable, Sendable, Identifiable {
    var id: String
    var accountID: String
    var kind: ReceiptKind
    var payload: String
    var payloadHash: String
    var orderID: String?
    var productID: String?
    var status: ReceiptStatus
    var reason: String?
    var attempts: Int
    var environment: String?
    var idempotencyKey: String?
    var requestHash: String
    var createdAt: Date
    var updatedAt: Date
    var publishedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case kind, payload
        case payloadHash = "payload_hash"
        case orderID = "order_id"
        case productID = "product_id"
        case status, reason, attempts, environment
        case idempotencyKey = "idempotency_key"
        case requestHash = "request_hash"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case publishedAt = "published_at"
    }
}

extension Receipt {
    /// A receipt just accepted: received, never attempted, not yet published.
    init(_ new: NewReceipt, now: Date) {
        self.init(
            id: new.id, accountID: new.accountID, kind: new.kind, payload: new.payload,
            payloadHash: new.payloadHash, orderID: new.orderID, productID: new.productID, status: .received,
            reason: nil, attempts: 0, environment: nil, idempotencyKey: new.idempotencyKey,
            requestHash: new.requestHash, createdAt: now, updatedAt: now, publishedAt: nil)
    }

    var summary: ReceiptSummary { ReceiptSummary(id: id, status: status) }

    /// The validate-queue message for this receipt.
    var submission: Submission {
        Submission(
            id: id, accountID: accountID, evidence: ReceiptKind.evidence(kind, payload), orderID: orderID,
            productID: productID, submittedAt: createdAt)
    }
}
