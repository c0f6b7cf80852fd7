import Database
import Foundation
import PipelineCore

/// A row of `store_notifications`: one store notification as the store sent it, and where
/// it is now. Apple posts a notification again until it is answered 200, and may sign it
/// again; `payload_hash` makes a resent payload one row, `notification_uuid` (set when
/// applied) makes a re-signed one apply once. Google's (`store` = `google`) hold the
/// ``GoogleNotice`` as canonical JSON; `message_id`, Pub/Sub's, makes a redelivery one row.
struct InboundNotification: Codable, Hashable, Sendable, Identifiable {
    var id: String
    /// The app whose credential proved it (``AppScope/key``): its own dedupe keys, its own
    /// verifier, its own accounts.
    var app: String
    /// The `signedPayload` (JWS), untouched.
    var payload: String
    var payloadHash: String
    var status: NotificationStatus
    var reason: String?
    var attempts: Int
    var notificationUUID: String?
    var type: String?
    var subtype: String?
    var environment: String?
    var signedDate: Date?
    var transactionID: String?
    var originalTransactionID: String?
    var productID: String?
    var accountID: String?
    var createdAt: Date
    var updatedAt: Date
    var publishedAt: Date?
    /// `apple` or `google`.
    var store: String
    var messageID: String?

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
    }
}

extension InboundNotification {
    /// A notification just accepted: received, never attempted, not yet published.
    init(
        id: String, app: String, payload: String, payloadHash: String, now: Date, store: String = "apple",
        messageID: String? = nil
    ) {
        self.init(
            id: id, app: app, payload: payload, payloadHash: payloadHash, status: .received, reason: nil, attempts: 0,
            notificationUUID: nil, type: nil, subtype: nil, environment: nil, signedDate: nil, transactionID: nil,
            originalTransactionID: nil, productID: nil, accountID: nil, createdAt: now, updatedAt: now,
            publishedAt: nil, store: store, messageID: messageID)
    }

    /// The validate-queue message for this notification: no account, the payload as the evidence.
    var submission: Submission {
        var submission = Submission(
            id: id, accountID: "", evidence: Self.evidence(store: store, payload), submittedAt: createdAt)
        submission.app = app
        return submission
    }

    /// A stored notification's payload as the evidence it is: the store's notification
    /// (Apple's `signedPayload`, Google's row as it always was).
    static func evidence(store: String, _ payload: String) -> Evidence {
        .store(StoreEvidence(store: store, kind: StoreEvidence.notificationKind, payload: payload))
    }

    var details: NotificationDetails {
        NotificationDetails(
            notificationID: id, status: status, reason: reason, attempts: attempts,
            notificationUUID: notificationUUID, type: type, subtype: subtype, environment: environment,
            signedDate: signedDate, transactionID: transactionID, originalTransactionID: originalTransactionID,
            productID: productID, accountID: accountID, createdAt: createdAt, updatedAt: updatedAt,
            publishedAt: publishedAt)
    }
}
