import Foundation
import PipelineCore

/// A row of `store_notifications`: one store notification as the store sent it, and where
/// it is now. Apple posts a notification again until it is answered 200, and may sign it
/// again; `payload_hash` makes a resent payload one row, `notification_uuid` (set when
/// applied) makes a re-signed one apply once. Google's (`store` = `google`) hold the
/// ``GoogleNotice`` as canonical JSON; `message_id`, Pub/Sub's, makes a redelivery one row.
package struct NotificationRow: Codable, Hashable, Sendable, Identifiable {
    package var id: String
    /// The app whose credential proved it (``AppScope/key``): its own dedupe keys, its own
    /// verifier, its own accounts.
    package var app: String
    /// The `signedPayload` (JWS), untouched.
    package var payload: String
    package var payloadHash: String
    package var status: NotificationStatus
    package var reason: String?
    package var attempts: Int
    package var notificationUUID: String?
    package var type: String?
    package var subtype: String?
    package var environment: String?
    package var signedDate: Date?
    package var transactionID: String?
    package var originalTransactionID: String?
    package var productID: String?
    package var accountID: String?
    package var createdAt: Date
    package var updatedAt: Date
    package var publishedAt: Date?
    /// `apple` or `google`.
    package var store: String
    package var messageID: String?
    /// The relay of the intake that stored it (schema v19); nil: any relay's.
    package var relay: String?

    package init(
        id: String, app: String, payload: String, payloadHash: String, status: NotificationStatus,
        reason: String? = nil, attempts: Int, notificationUUID: String? = nil, type: String? = nil,
        subtype: String? = nil, environment: String? = nil, signedDate: Date? = nil, transactionID: String? = nil,
        originalTransactionID: String? = nil, productID: String? = nil, accountID: String? = nil, createdAt: Date,
        updatedAt: Date, publishedAt: Date? = nil, store: String, messageID: String? = nil, relay: String? = nil
    ) {
        self.id = id
        self.app = app
        self.payload = payload
        self.payloadHash = payloadHash
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.accountID = accountID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.publishedAt = publishedAt
        self.store = store
        self.messageID = messageID
        self.relay = relay
    }

    enum CodingKeys: String, CodingKey {
        case id, app, payload
        case payloadHash = "payload_hash"
        case status, reason, attempts
        case notificationUUID = "notification_uuid"
        case type, subtype, environment
        case signedDate = "signed_date"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case accountID = "account_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case publishedAt = "published_at"
        case store
        case messageID = "message_id"
        case relay
    }
}

extension NotificationRow {
    /// A notification just accepted: received, never attempted, not yet published.
    package init(
        id: String, app: String, payload: String, payloadHash: String, now: Date, store: String = "apple",
        messageID: String? = nil, relay: String? = nil
    ) {
        self.init(
            id: id, app: app, payload: payload, payloadHash: payloadHash, status: .received, reason: nil, attempts: 0,
            notificationUUID: nil, type: nil, subtype: nil, environment: nil, signedDate: nil, transactionID: nil,
            originalTransactionID: nil, productID: nil, accountID: nil, createdAt: now, updatedAt: now,
            publishedAt: nil, store: store, messageID: messageID, relay: relay)
    }

    /// The validate-queue message for this notification: no account, the payload as the evidence.
    package var submission: Submission {
        var submission = Submission(
            id: id, accountID: "", evidence: Self.evidence(store: store, payload), submittedAt: createdAt)
        submission.app = app
        return submission
    }

    /// A stored notification's payload as the evidence it is: the store's notification
    /// (Apple's `signedPayload`, Google's row as it always was).
    package static func evidence(store: String, _ payload: String) -> Evidence {
        .store(StoreEvidence(store: store, kind: StoreEvidence.notificationKind, payload: payload))
    }

    package var details: NotificationDetails {
        NotificationDetails(
            notificationID: id, status: status, reason: reason, attempts: attempts,
            notificationUUID: notificationUUID, type: type, subtype: subtype, environment: environment,
            signedDate: signedDate, transactionID: transactionID, originalTransactionID: originalTransactionID,
            productID: productID, accountID: accountID, createdAt: createdAt, updatedAt: updatedAt,
            publishedAt: publishedAt)
    }
}
