/// What ``PipelineDatabase/apply(_:catalog:now:)`` did with one verdict.
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

    public var receiptID: String {
        switch self {
        case .applied(let id, _, _), .alreadyFinal(let id, _), .unknownReceipt(let id), .unknownOutcome(let id, _),
            .invalid(let id, _):
            id
        }
    }
}
