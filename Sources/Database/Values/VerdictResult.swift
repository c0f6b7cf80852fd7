/// What ``SQLiteDatabase/apply(_:catalog:now:)`` did with one verdict.
///
/// A verdict's `receiptID` names a receipt or an App Store Server Notification (ids of the
/// two never collide); the `notification...` cases are for the latter.
public enum VerdictResult: Hashable, Sendable {
    /// The verdict changed the receipt to `status` (with `reason` where there is one).
    case applied(receiptID: String, status: ReceiptStatus, reason: String?)
    /// The receipt had already ended (a redelivery, say); nothing changed.
    case alreadyFinal(receiptID: String, status: ReceiptStatus)
    /// No receipt has this id; nothing changed.
    case unknownReceipt(receiptID: String)
    /// The verdict's outcome is one this build does not know; nothing changed.
    case unknownOutcome(receiptID: String, outcome: String)
    /// The verdict broke a database constraint (malformed data); nothing of it was
    /// applied, the rest of the batch was. Dead-letter its message for review.
    case invalid(receiptID: String, reason: String)
    /// The verdict changed the notification to `status`. `reason` says why an applied one
    /// changed no account (`duplicate of <id>`, `unbound`, `already_refunded`, ...), or why
    /// it was rejected or dead-lettered.
    case notificationApplied(notificationID: String, status: NotificationStatus, reason: String?)
    /// The notification had already ended (a redelivery); nothing changed.
    case notificationAlreadyFinal(notificationID: String, status: NotificationStatus)
    /// The verdict answered a subscription check: `status` `done` (with `outcome`
    /// `renewed`, `expired`, `revoked` or `unchanged`), `failed`, or still `checking`.
    case subscriptionCheckApplied(checkID: String, status: String, outcome: String?)

    /// The verdict's id: a receipt's, or a notification's for the `notification...` cases.
    public var receiptID: String {
        switch self {
        case .applied(let id, _, _), .alreadyFinal(let id, _), .unknownReceipt(let id), .unknownOutcome(let id, _),
            .invalid(let id, _), .notificationApplied(let id, _, _), .notificationAlreadyFinal(let id, _),
            .subscriptionCheckApplied(let id, _, _):
            id
        }
    }
}
