/// What ``IntakeRepository/accept(_:now:)`` did with one receipt.
public enum AcceptOutcome: Hashable, Sendable {
    /// Stored (and durable once the call returns): answer 202.
    case created(ReceiptSummary)
    /// Already stored, by an earlier request or earlier in the same batch: the same
    /// payload for the same account, or the same idempotency key with the same body.
    /// The summary is the first receipt's: answer 200 with it.
    case duplicate(ReceiptSummary)
    /// The idempotency key was used before by this account for a different body: 422.
    case idempotencyConflict(existingID: String)
    /// The database's constraints refused the receipt (the caller's validation should
    /// have caught it); nothing of it was stored, the rest of the batch was: answer 400.
    case invalid(reason: String)
}

/// A receipt's id and status: the body of the intake's 202 and 200 answers.
public struct ReceiptSummary: Codable, Hashable, Sendable {
    public var id: String
    public var status: ReceiptStatus

    public init(id: String, status: ReceiptStatus) {
        self.id = id
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case id = "receipt_id"
        case status
    }
}
