import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// An operator's filter over dead letters, as typed on the command line or in the console:
/// a reason, an account, and an age window given as durations (`30m`, `2h`, `7d`).
public struct DeadLetterFilter: Hashable, Sendable {
    public var reason: String?
    public var accountID: String?
    /// Only letters that died longer ago than this.
    public var olderThan: TimeInterval?
    /// Only letters that died at most this long ago.
    public var newerThan: TimeInterval?
    /// Only this app's letters; every app's when nil.
    public var app: AppScope?

    public init(
        reason: String? = nil, accountID: String? = nil, olderThan: TimeInterval? = nil, newerThan: TimeInterval? = nil
    ) {
        self.reason = reason
        self.accountID = accountID
        self.olderThan = olderThan
        self.newerThan = newerThan
    }

    /// Parses the textual filter; empty strings mean "no filter".
    ///
    /// - Throws: ``FilterError`` naming the field and what is wrong with it.
    public init(reason: String?, accountID: String?, olderThan: String?, newerThan: String?) throws(FilterError) {
        self.reason = Self.nonEmpty(reason)
        self.accountID = Self.nonEmpty(accountID)
        self.olderThan = try Self.nonEmpty(olderThan).map { text throws(FilterError) in
            try Self.age(text, field: "older-than")
        }
        self.newerThan = try Self.nonEmpty(newerThan).map { text throws(FilterError) in
            try Self.age(text, field: "newer-than")
        }
        if let reason = self.reason, reason.count > 1000 {
            throw FilterError(field: "reason", problem: "is longer than 1000 characters (\(reason.count))")
        }
        if let account = self.accountID, account.count > 128 {
            throw FilterError(field: "account", problem: "is longer than 128 characters, no account id is")
        }
    }

    /// The store's query for this filter, relative to `now`.
    public func query(now: Date, statuses: Set<DeadLetter.Status> = [.waiting, .replaying]) -> DeadLetterQuery {
        DeadLetterQuery(
            reason: reason, accountID: accountID, deadBefore: olderThan.map { now.addingTimeInterval(-$0) },
            deadSince: newerThan.map { now.addingTimeInterval(-$0) }, statuses: statuses, app: app)
    }

    /// Whether it selects every letter.
    public var isEmpty: Bool {
        reason == nil && accountID == nil && olderThan == nil && newerThan == nil && app == nil
    }

    /// `45s`, `30m`, `2h`, `7d` or `2w`: a whole number and one unit.
    static func age(_ text: String, field: String) throws(FilterError) -> TimeInterval {
        guard let seconds = Age.seconds(text) else {
            throw FilterError(
                field: field,
                problem: "'\(text)' is not a duration; write a whole number and a unit, like 30m, 2h or 7d")
        }
        return seconds
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }
}

/// A malformed filter; names the field and the problem.
public struct FilterError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field): \(problem)" }
}
