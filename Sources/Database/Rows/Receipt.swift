import Foundation
import PipelineCore

/// A row of `receipts`: one receipt as the intake committed it, and where it is now.
package struct Receipt: Codable, Hashable, Sendable, Identifiable {
    package var id: String
    package var accountID: String
    package var kind: ReceiptKind
    package var payload: String
    package var payloadHash: String
    package var orderID: String?
    package var productID: String?
    package var status: ReceiptStatus
    package var reason: String?
    package var attempts: Int
    package var environment: String?
    package var idempotencyKey: String?
    package var requestHash: String
    package var createdAt: Date
    package var updatedAt: Date
    package var publishedAt: Date?

    package init(
        id: String, accountID: String, kind: ReceiptKind, payload: String, payloadHash: String, orderID: String? = nil,
        productID: String? = nil, status: ReceiptStatus, reason: String? = nil, attempts: Int,
        environment: String? = nil, idempotencyKey: String? = nil, requestHash: String, createdAt: Date,
        updatedAt: Date, publishedAt: Date? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.kind = kind
        self.payload = payload
        self.payloadHash = payloadHash
        self.orderID = orderID
        self.productID = productID
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.environment = environment
        self.idempotencyKey = idempotencyKey
        self.requestHash = requestHash
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
    }

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
    package init(_ new: NewReceipt, now: Date) {
        self.init(
            id: new.id, accountID: new.accountID, kind: new.kind, payload: new.payload,
            payloadHash: new.payloadHash, orderID: new.orderID, productID: new.productID, status: .received,
            reason: nil, attempts: 0, environment: nil, idempotencyKey: new.idempotencyKey,
            requestHash: new.requestHash, createdAt: now, updatedAt: now, publishedAt: nil)
    }

    package var summary: ReceiptSummary { ReceiptSummary(id: id, status: status) }

    /// The validate-queue message for this receipt.
    package var submission: Submission {
        Submission(
            id: id, accountID: accountID, evidence: ReceiptKind.evidence(kind, payload), orderID: orderID,
            productID: productID, submittedAt: createdAt)
    }
}
