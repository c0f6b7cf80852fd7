import Foundation

/// Whether a player consented to share consumption data with Apple when they ask it for a
/// refund, as the backend recorded it: `{"account_id", "consented", "recorded_at"}`.
public struct ConsumptionConsent: Codable, Hashable, Sendable {
    public var accountID: String
    public var consented: Bool
    public var recordedAt: Date

    public init(accountID: String, consented: Bool, recordedAt: Date) {
        self.accountID = accountID
        self.consented = consented
        self.recordedAt = recordedAt
    }

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case consented
        case recordedAt = "recorded_at"
    }
}

/// What we told Apple about one `CONSUMPTION_REQUEST`, or why we did not.
public struct ConsumptionAnswerRecord: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable {
        /// Apple accepted it (`202`).
        case sent
        /// Not answered: no consent, or consent withdrawn.
        case withheld
        /// Apple refused it, or could not be reached; tried again until the deadline.
        case failed
    }

    public var notificationID: String
    public var transactionID: String
    public var accountID: String?
    public var status: Status
    public var reason: String?
    /// The JSON sent to Apple.
    public var body: String?
    public var appleStatus: Int?
    public var tenureDays: Int?
    /// Attempts so far, this one included.
    public var attempts: Int

    public init(
        notificationID: String, transactionID: String, accountID: String?, status: Status, reason: String? = nil,
        body: String? = nil, appleStatus: Int? = nil, tenureDays: Int? = nil, attempts: Int = 1
    ) {
        self.notificationID = notificationID
        self.transactionID = transactionID
        self.accountID = accountID
        self.status = status
        self.reason = reason
        self.body = body
        self.appleStatus = appleStatus
        self.tenureDays = tenureDays
        self.attempts = attempts
    }
}
