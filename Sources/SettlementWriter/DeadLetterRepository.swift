import Database
import Foundation
import PipelineCore

// MARK: - Dead letters: the archive operators review

/// The dead-letter archive: letters the fulfiller archived, and the operators' replays and discards.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct DeadLetterRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }
    /// Archives dead letters and marks what they carried dead, in one transaction.
    ///
    /// Each letter is stored whole; one whose receipt (or Apple notification) is known gets
    /// the account filled in and a `dead` verdict applied to it, which queues its
    /// `receipt.dead` webhook. A letter already archived (the broker redelivered it) changes
    /// nothing, so that a receipt replayed meanwhile is not killed again.
    ///
    /// - Returns: per letter, the verdict's result; nil for a duplicate or a letter that
    ///   named no receipt.
    public func archive(_ letters: [DeadLetter], catalog: Catalog, now: Date) async throws -> [VerdictResult?] {
        guard !letters.isEmpty else { return [] }
        return try await database.transaction { db in
            try await VerdictApplier.within(db, catalog: catalog, now: now) { applier in
                try await Self.archive(letters, now: now, applier: applier, db)
            }
        }
    }

    /// The new letters stored in one statement, their receipts' `dead` verdicts applied as a batch.
    private static func archive(_ letters: [DeadLetter], now: Date, applier: VerdictApplier, _ db: any SQLSession)
        async throws -> [VerdictResult?]
    {
        let stored = Set(
            try await db.rows("SELECT id FROM dead_letters WHERE id IN (?)", in: letters.map(\.id)).map {
                try $0.get("id", as: String.self)
            })
        var seen = Set<String>()
        var fresh = letters.filter { !stored.contains($0.id) && seen.insert($0.id).inserted }
        try await applier.batch.loadSubjects(fresh.compactMap(\.receiptID))
        for index in fresh.indices {
            guard let id = fresh[index].receiptID else { continue }
            fresh[index].accountID =
                (applier.batch.books.receipts[id] ?? nil)?.accountID
                ?? (applier.batch.books.notifications[id] ?? nil)?
                .accountID
        }
        try await db.insert(contentsOf: fresh, into: "dead_letters")
        let verdicts = fresh.compactMap { letter in
            letter.receiptID.map {
                Verdict(
                    outcome: .dead, receiptID: $0, accountID: letter.accountID ?? "", reason: letter.reason,
                    attempts: letter.attempts, decidedAt: now)
            }
        }
        var results = try await applier.apply(verdicts).makeIterator()
        let freshIDs = Set(fresh.map(\.id))
        var archived = Set<String>()
        return letters.map { letter in
            guard freshIDs.contains(letter.id), archived.insert(letter.id).inserted, letter.receiptID != nil else {
                return nil
            }
            return results.next()
        }
    }

    /// One dead letter; nil if there is none with this id.
    public func deadLetter(id: String) async throws -> DeadLetter? {
        try await database.snapshot { db in
            try await db.record(DeadLetter.self, "SELECT * FROM dead_letters WHERE id = ?", [id])
        }
    }

    /// Every letter that carried `receiptID`, oldest first: the receipt's deaths and replays.
    public func deadLetters(receiptID: String) async throws -> [DeadLetter] {
        try await database.snapshot { db in
            try await db.records(
                DeadLetter.self, "SELECT * FROM dead_letters WHERE receipt_id = ? ORDER BY dead_at, created_at, id",
                [receiptID])
        }
    }

    /// The letters `query` selects, newest first.
    public func deadLetters(_ query: DeadLetterQuery, limit: Int = 500) async throws -> [DeadLetter] {
        let (condition, arguments) = Self.sqlCondition(query)
        return try await database.snapshot { db in
            try await db.records(
                DeadLetter.self,
                "SELECT * FROM dead_letters WHERE \(condition) ORDER BY dead_at DESC, created_at DESC, id DESC LIMIT ?",
                arguments + [limit])
        }
    }

    /// The letters `query` selects grouped by reason, largest group first.
    public func deadLetterGroups(_ query: DeadLetterQuery) async throws -> [DeadLetterGroup] {
        let (condition, arguments) = Self.sqlCondition(query)
        return try await database.snapshot { db in
            try await db.rows(
                """
                SELECT reason, COUNT(*) AS count, MIN(dead_at) AS first, MAX(dead_at) AS last
                FROM dead_letters WHERE \(condition)
                GROUP BY reason ORDER BY count DESC, last DESC
                """, arguments
            ).map { row in
                DeadLetterGroup(
                    reason: try row.get("reason"), count: try row.get("count"), firstDeadAt: try row.get("first"),
                    lastDeadAt: try row.get("last"))
            }
        }
    }

    /// The ids of the letters `query` selects, oldest first (the order a bulk replay keeps).
    public func deadLetterIDs(_ query: DeadLetterQuery) async throws -> [String] {
        let (condition, arguments) = Self.sqlCondition(query)
        return try await database.snapshot { db in
            try await db.rows(
                "SELECT id FROM dead_letters WHERE \(condition) ORDER BY dead_at, created_at, id", arguments
            ).map { try $0.get("id") }
        }
    }

    // MARK: Replay and discard

    /// The first step of a replay, before anything is published: marks the letter
    /// `replaying` and reopens its dead receipt or notification (status `validating`, reason
    /// cleared), so that the verdict the replay brings is applied, not ignored as final.
    ///
    /// - Throws: ``DeadLetterError`` when there is no such letter or it was replayed or
    ///   discarded already; nothing is changed then.
    public func beginReplay(id: String, by operatorName: String, now: Date) async throws -> DeadLetter {
        let started = try await beginReplays(ids: [id], by: operatorName, now: now)
        if let refused = started.refused.first { throw refused.error }
        return started.begun[0]
    }

    /// ``beginReplay(id:by:now:)`` for many letters in one transaction (a bulk replay).
    ///
    /// - Returns: the letters now `replaying`, and those refused (unknown or resolved) with why.
    public func beginReplays(
        ids: [String], by operatorName: String, now: Date
    ) async throws -> (begun: [DeadLetter], refused: [(id: String, error: DeadLetterError)]) {
        try await database.transaction { db in
            var begun: [DeadLetter] = []
            var refused: [(id: String, error: DeadLetterError)] = []
            for id in ids {
                do {
                    await begun.append(try Self.beginReplay(id: id, by: operatorName, now: now, db))
                } catch let error as DeadLetterError {
                    // Refused before anything was written for this letter.
                    refused.append((id, error))
                }
            }
            return (begun, refused)
        }
    }

    private static func beginReplay(id: String, by operatorName: String, now: Date, _ db: any SQLSession) async throws
        -> DeadLetter
    {
        var letter = try await openLetter(id: id, db)
        letter.status = .replaying
        letter.resolvedBy = operatorName
        try await db.update(letter, in: "dead_letters")
        guard let receiptID = letter.receiptID else { return letter }
        if var receipt = try await db.record(Receipt.self, "SELECT * FROM receipts WHERE id = ?", [receiptID]),
            receipt.status == .dead
        {
            receipt.status = .validating
            receipt.reason = nil
            receipt.updatedAt = now
            try await db.update(receipt, in: "receipts")
        } else if var notification = try await db.record(
            NotificationRow.self, "SELECT * FROM store_notifications WHERE id = ?", [receiptID]),
            notification.status == .dead
        {
            notification.status = .validating
            notification.reason = nil
            notification.updatedAt = now
            try await db.update(notification, in: "store_notifications")
        }
        return letter
    }

    /// The last step of a replay, once the broker confirmed the publish.
    public func finishReplay(id: String, by operatorName: String, now: Date) async throws {
        guard try await deadLetter(id: id) != nil else {
            throw DeadLetterError(.unknownLetter, "no dead letter with id \(id)")
        }
        try await finishReplays(ids: [id], by: operatorName, now: now)
    }

    /// ``finishReplay(id:by:now:)`` for many letters in one transaction; unknown ids are skipped.
    public func finishReplays(ids: [String], by operatorName: String, now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await database.transaction { db in
            for id in ids {
                guard var letter = try await db.record(DeadLetter.self, "SELECT * FROM dead_letters WHERE id = ?", [id])
                else { continue }
                letter.status = .replayed
                letter.resolvedBy = operatorName
                letter.resolvedAt = now
                try await db.update(letter, in: "dead_letters")
            }
        }
    }

    /// Undoes ``beginReplay(id:by:now:)`` when the broker refused the publish: the letter
    /// waits again and its reopened receipt (or notification) is dead again with its reason.
    public func abortReplay(id: String, now: Date) async throws {
        try await abortReplays(ids: [id], now: now)
    }

    /// ``abortReplay(id:now:)`` for many letters in one transaction.
    public func abortReplays(ids: [String], now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await database.transaction { db in
            for id in ids {
                guard
                    var letter = try await db.record(DeadLetter.self, "SELECT * FROM dead_letters WHERE id = ?", [id]),
                    letter.status == .replaying
                else { continue }
                letter.status = .waiting
                letter.resolvedBy = nil
                try await db.update(letter, in: "dead_letters")
                guard let receiptID = letter.receiptID else { continue }
                if var receipt = try await db.record(Receipt.self, "SELECT * FROM receipts WHERE id = ?", [receiptID]),
                    !receipt.status.isFinal
                {
                    receipt.status = .dead
                    receipt.reason = letter.reason
                    receipt.updatedAt = now
                    try await db.update(receipt, in: "receipts")
                } else if var notification = try await db.record(
                    NotificationRow.self, "SELECT * FROM store_notifications WHERE id = ?", [receiptID]),
                    !notification.status.isFinal
                {
                    notification.status = .dead
                    notification.reason = letter.reason
                    notification.updatedAt = now
                    try await db.update(notification, in: "store_notifications")
                }
            }
        }
    }

    /// Gives up on a dead letter. Its receipt (or notification) stays dead, or is dead again
    /// if a replay had reopened it, and its reason says who discarded it and why
    /// ("discarded by alice: test purchase"), as `GET /v1/receipts/{id}` shows.
    ///
    /// - Throws: ``DeadLetterError`` for an unknown or already resolved letter, an empty
    ///   reason or operator; nothing is changed then.
    public func discard(id: String, by operatorName: String, reason: String, now: Date) async throws -> DeadLetter {
        let done = try await discard(ids: [id], by: operatorName, reason: reason, now: now)
        if let refused = done.refused.first { throw refused.error }
        return done.discarded[0]
    }

    /// ``discard(id:by:reason:now:)`` for many letters in one transaction (a group discard).
    ///
    /// - Returns: the letters discarded, and those refused (unknown or resolved) with why.
    /// - Throws: ``DeadLetterError`` for an empty reason or operator; nothing is changed then.
    public func discard(
        ids: [String], by operatorName: String, reason: String, now: Date
    ) async throws -> (discarded: [DeadLetter], refused: [(id: String, error: DeadLetterError)]) {
        let why = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        let who = operatorName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !why.isEmpty else { throw DeadLetterError(.reasonRequired, "a discard needs a reason") }
        guard !who.isEmpty else { throw DeadLetterError(.operatorRequired, "a discard needs the operator's name") }
        return try await database.transaction { db in
            var discarded: [DeadLetter] = []
            var refused: [(id: String, error: DeadLetterError)] = []
            for id in ids {
                do {
                    await discarded.append(try Self.discard(id: id, by: who, reason: why, now: now, db))
                } catch let error as DeadLetterError {
                    // Refused before anything was written for this letter.
                    refused.append((id, error))
                }
            }
            return (discarded, refused)
        }
    }

    private static func discard(id: String, by who: String, reason why: String, now: Date, _ db: any SQLSession)
        async throws
        -> DeadLetter
    {
        var letter = try await openLetter(id: id, db)
        letter.status = .discarded
        letter.resolvedBy = who
        letter.resolvedReason = why
        letter.resolvedAt = now
        try await db.update(letter, in: "dead_letters")
        let statusReason = "discarded by \(who): \(why)"
        guard let receiptID = letter.receiptID else { return letter }
        if var receipt = try await db.record(Receipt.self, "SELECT * FROM receipts WHERE id = ?", [receiptID]),
            receipt.status == .dead || !receipt.status.isFinal
        {
            receipt.status = .dead
            receipt.reason = statusReason
            receipt.updatedAt = now
            try await db.update(receipt, in: "receipts")
        } else if var notification = try await db.record(
            NotificationRow.self, "SELECT * FROM store_notifications WHERE id = ?", [receiptID]),
            notification.status == .dead || !notification.status.isFinal
        {
            notification.status = .dead
            notification.reason = statusReason
            notification.updatedAt = now
            try await db.update(notification, in: "store_notifications")
        }
        return letter
    }

    private static func openLetter(id: String, _ db: any SQLSession) async throws -> DeadLetter {
        guard let letter = try await db.record(DeadLetter.self, "SELECT * FROM dead_letters WHERE id = ?", [id]) else {
            throw DeadLetterError(.unknownLetter, "no dead letter with id \(id)")
        }
        guard letter.status.isOpen else {
            throw DeadLetterError(
                .alreadyResolved,
                "dead letter \(id) was already \(letter.status.rawValue) by \(letter.resolvedBy ?? "someone")")
        }
        return letter
    }

    private static func sqlCondition(_ query: DeadLetterQuery) -> (String, SQLArguments) {
        var clauses: [String] = []
        var arguments: SQLArguments = []
        let statuses = query.statuses.map(\.rawValue).sorted()
        clauses.append("status IN (\(statuses.map { _ in "?" }.joined(separator: ", ")))")
        arguments += statuses
        if let reason = query.reason {
            clauses.append("reason = ?")
            arguments += [reason]
        }
        if let account = query.accountID {
            clauses.append("account_id = ?")
            arguments += [account]
        }
        if let app = query.app?.sqlCondition(column: "account_id") {
            clauses.append(app.sql)
            arguments += app.arguments
        }
        if let before = query.deadBefore {
            clauses.append("dead_at < ?")
            arguments += [before]
        }
        if let since = query.deadSince {
            clauses.append("dead_at >= ?")
            arguments += [since]
        }
        return (statuses.isEmpty ? "1 = 0" : clauses.joined(separator: " AND "), arguments)
    }

    // MARK: Console queries
}
