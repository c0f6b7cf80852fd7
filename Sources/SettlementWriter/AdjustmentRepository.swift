import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - Manual adjustments: an operator's grants and revokes, on the record

/// An operator's grants and revokes of a currency or an entitlement, through the
/// settlement engine, each kept in `manual_adjustments` with its operator and reason.
///
/// One transaction per request: the idempotency key is looked up first, so a double click
/// (the same key and the same request) counts once and answers as the first did; the same
/// key with another request is refused. The account is locked while it is decided.
public struct AdjustmentRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// The largest grant or take-back one adjustment makes: far beyond any real one, and far
    /// below where a balance's 64 bits could overflow.
    public static let maximumAmount = 1_000_000_000_000

    /// What an operator asks for.
    public struct Request: Hashable, Sendable {
        public enum Change: Hashable, Sendable {
            /// A currency: positive grants, negative takes back.
            case currency(String, amount: Int)
            /// An entitlement until a date.
            case entitlement(String, until: Date)
        }

        public var accountID: String
        public var change: Change
        public var reason: String
        public var operatorName: String
        /// The same key again is the same request, counted once.
        public var idempotencyKey: String

        public init(accountID: String, change: Change, reason: String, operatorName: String, idempotencyKey: String) {
            self.accountID = accountID
            self.change = change
            self.reason = reason
            self.operatorName = operatorName
            self.idempotencyKey = idempotencyKey
        }
    }

    /// A recorded adjustment.
    public struct Record: Hashable, Sendable {
        public var id: String
        public var accountID: String
        public var change: Request.Change
        public var reason: String
        public var operatorName: String
        /// After a currency change: the balance, and what policy `clamp` wrote off.
        public var balance: Int?
        public var writtenOff: Int?
        public var createdAt: Date
        /// True when the key had been used already: nothing new happened.
        public var replayed = false
    }

    /// Why a request changed nothing.
    public enum Refusal: Error, Hashable, CustomStringConvertible {
        /// What was typed is malformed: not a number, not a date, a date outside years
        /// 1970-9999, a control character.
        case invalid(String)
        /// The engine refused it (no such account, unknown currency, zero amount, no reason...).
        case refused(String)
        /// The key was used for a different request (its adjustment's id).
        case keyReused(String)

        public var description: String {
            switch self {
            case .invalid(let problem): problem
            case .refused(let reason): reason
            case .keyReused(let id): "the idempotency key was used for another adjustment (\(id))"
            }
        }
    }

    /// Applies `request` once, with one catalog for every account.
    /// - Throws: ``Refusal`` (nothing changed), or the database's error.
    public func apply(_ request: Request, catalog: Catalog, now: Date) async throws -> Record {
        try await apply(request, catalogs: AppCatalogs(catalog), now: now)
    }

    /// Applies `request` once, its currency or entitlement checked against the catalog of
    /// the account's app (issue 30).
    /// - Throws: ``Refusal`` (nothing changed), or the database's error.
    public func apply(_ request: Request, catalogs: AppCatalogs, now: Date) async throws -> Record {
        try await database.transaction { db in
            try await db.lock(["account:\(request.accountID)"])
            if let existing = try await Self.record(key: request.idempotencyKey, in: db) {
                guard existing.accountID == request.accountID, existing.change == request.change,
                    existing.reason == request.reason
                else { throw Refusal.keyReused(existing.id) }
                var replayed = existing
                replayed.replayed = true
                return replayed
            }
            let id = TimeOrderedID.make(at: now)
            let event: SettlementEvent =
                switch request.change {
                case .currency(let currency, let amount):
                    .adjustment(
                        Adjustment(
                            id: id, accountID: request.accountID, currency: currency, amount: amount,
                            reason: request.reason, operatorName: request.operatorName))
                case .entitlement(let name, let until):
                    .entitlementGrant(
                        EntitlementGrant(
                            id: id, accountID: request.accountID, entitlement: name, until: until,
                            reason: request.reason, operatorName: request.operatorName))
                }
            let decision: Decision
            do {
                decision = try await VerdictApplier.within(db, catalogs: catalogs, now: now) {
                    try await $0.settle(event)
                }
            } catch let refusal as SettlementRefusal {
                throw Refusal.refused(refusal.reason)
            }
            let data = decision.effects.lazy.compactMap { effect -> AdjustmentEventData? in
                if case .send(let webhook) = effect, case .adjusted(let data) = webhook.data { return data }
                return nil
            }.first
            let record = Record(
                id: id, accountID: request.accountID, change: request.change, reason: request.reason,
                operatorName: request.operatorName, balance: data?.balance, writtenOff: data?.writtenOff,
                createdAt: now)
            try await Self.insert(record, key: request.idempotencyKey, in: db)
            return record
        }
    }

    /// An account's adjustments, newest first.
    public func adjustments(of accountID: String, limit: Int = 200) async throws -> [Record] {
        try await database.snapshot { db in
            try await db.rows(
                "\(Self.select) WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", [accountID, limit]
            ).map(Self.record(from:))
        }
    }

    package static let select = """
        SELECT id, account_id, kind, currency, amount, entitlement, expires_at, reason, operator, balance,
            written_off, created_at
        FROM manual_adjustments
        """

    package static func record(key: String, in db: any SQLSession) async throws -> Record? {
        try await db.row("\(select) WHERE idempotency_key = ?", [key]).map(record(from:))
    }

    package static func record(from row: SQLRow) throws -> Record {
        let kind: String = try row.get("kind")
        let change: Request.Change =
            kind == "entitlement"
            ? .entitlement(try row.get("entitlement"), until: try row.get("expires_at"))
            : .currency(try row.get("currency"), amount: try row.get("amount"))
        return Record(
            id: try row.get("id"), accountID: try row.get("account_id"), change: change,
            reason: try row.get("reason"), operatorName: try row.get("operator"), balance: try row.get("balance"),
            writtenOff: try row.get("written_off"), createdAt: try row.get("created_at"))
    }

    static func insert(_ record: Record, key: String, in db: any SQLSession) async throws {
        let (kind, currency, amount, entitlement, until): (String, String?, Int?, String?, Date?) =
            switch record.change {
            case .currency(let currency, let amount): ("currency", currency, amount, nil, nil)
            case .entitlement(let name, let until): ("entitlement", nil, nil, name, until)
            }
        try await db.execute(
            """
            INSERT INTO manual_adjustments (
                id, idempotency_key, account_id, kind, currency, amount, entitlement, expires_at, reason, operator,
                balance, written_off, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                record.id, key, record.accountID, kind, currency, amount, entitlement, until, record.reason,
                record.operatorName, record.balance, record.writtenOff, record.createdAt,
            ])
    }
}
