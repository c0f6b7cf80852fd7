import Foundation

/// A receipt or Apple notification found by the console's search.
public struct ReceiptSearchHit: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable {
        case receipt, notification
    }

    public var kind: Kind
    public var id: String
    public var accountID: String?
    public var status: String
    public var reason: String?
    public var attempts: Int
    public var createdAt: Date
    public var updatedAt: Date

    package init(
        kind: Kind, id: String, accountID: String? = nil, status: String, reason: String? = nil, attempts: Int,
        createdAt: Date, updatedAt: Date
    ) {
        self.kind = kind
        self.id = id
        self.accountID = accountID
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

}

/// Receipts received and credited since a moment, for the console's throughput figures.
public struct Throughput: Codable, Hashable, Sendable {
    public var received: Int
    public var credited: Int
    public var deadLettered: Int

    package init(received: Int, credited: Int, deadLettered: Int) {
        self.received = received
        self.credited = credited
        self.deadLettered = deadLettered
    }

}
