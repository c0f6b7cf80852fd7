import Foundation

/// Everything that touched an account, as support reads it (`iap account show`, the
/// console's account page): its balances and entitlements, one timeline in order, and
/// the webhooks sent about it.
public struct AccountStory: Codable, Hashable, Sendable {
    public var account: AccountDetails
    /// Oldest first.
    public var timeline: [AccountEvent]
    /// Newest first.
    public var webhooks: [WebhookLogEntry]

    public init(account: AccountDetails, timeline: [AccountEvent], webhooks: [WebhookLogEntry]) {
        self.account = account
        self.timeline = timeline
        self.webhooks = webhooks
    }
}

/// One thing that happened to an account.
public struct AccountEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        case order, receipt, notification, credit, debit, conflict, adjustment
        case deadLetter = "dead_letter"
        case expiry
    }

    /// What an event is about, so that a page can link to its detail.
    public struct Reference: Codable, Hashable, Sendable {
        public enum Kind: String, Codable, Hashable, Sendable {
            case receipt, notification, order, transaction
            case deadLetter = "dead_letter"
            case adjustment, entitlement
        }

        public var kind: Kind
        public var id: String

        public init(_ kind: Kind, _ id: String) {
            self.kind = kind
            self.id = id
        }
    }

    public var at: Date
    public var kind: Kind
    /// One line a person reads: "receipt credited after 1 attempt".
    public var summary: String
    public var reference: Reference

    public init(at: Date, kind: Kind, summary: String, reference: Reference) {
        self.at = at
        self.kind = kind
        self.summary = summary
        self.reference = reference
    }

    /// Oldest first; at one moment, in the order the pipeline makes them happen (a receipt
    /// before its credit, a credit before its webhook's conflict note).
    public static func inOrder(_ events: [AccountEvent]) -> [AccountEvent] {
        let rank = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        return events.enumerated().sorted { left, right in
            if left.element.at != right.element.at { return left.element.at < right.element.at }
            let (l, r) = (rank[left.element.kind] ?? 0, rank[right.element.kind] ?? 0)
            return l != r ? l < r : left.offset < right.offset
        }.map(\.element)
    }
}
