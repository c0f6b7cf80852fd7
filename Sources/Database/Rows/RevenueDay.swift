import Foundation
import PipelineCore
import Settlement

/// A row of `revenue_days`: the revenue ledger's entries of one UTC day, app, store and
/// currency, summed. Added to in the transaction that writes the entries, so that reports
/// over a year read a few thousand rows, not the ledger; ``rebuild(_:)`` writes it again
/// from the entries, which stay the truth.
public struct RevenueDay: Hashable, Sendable {
    public struct Key: Hashable, Comparable, Sendable {
        /// `yyyy-MM-dd`, UTC.
        public var day: String
        public var app: String
        public var store: String
        public var currency: String

        public init(day: String, app: String, store: String, currency: String) {
            self.day = day
            self.app = app
            self.store = store
            self.currency = currency
        }

        public static func < (a: Key, b: Key) -> Bool {
            (a.day, a.app, a.store, a.currency) < (b.day, b.app, b.store, b.currency)
        }
    }

    public var key: Key
    /// Purchases and renewals.
    public var payments: Int = 0
    /// What they paid (gross, minor units).
    public var paid: Int64 = 0
    /// Refunds and revocations.
    public var takeBacks: Int = 0
    /// What take-backs gave back, reversals deducted: zero or negative.
    public var givenBack: Int64 = 0
    /// Proceeds, take-backs deducted.
    public var proceeds: Int64 = 0
    /// Entries priced from the catalog.
    public var estimated: Int = 0
    /// Subscriptions' first periods paid for, free trials (first periods of price 0), and
    /// later periods.
    public var starts: Int = 0
    public var trials: Int = 0
    public var renewals: Int = 0
    /// Free trials converted: a subscription's first paid period after a free trial.
    public var conversions: Int = 0
    /// Tax in the day's entries where the stores report it (take-backs' negative).
    public var tax: Int64 = 0
    /// How active subscription periods, and monthly recurring revenue, moved this day
    /// (``movements(of:on:)``): summed over every day up to one, that day's figures.
    public var subscribers: Int = 0
    public var recurring: Int64 = 0

    public init(key: Key) {
        self.key = key
    }

    /// Gross kept: what was paid less what was given back.
    public var gross: Int64 { paid + givenBack }

    /// Counts `entry` in.
    public mutating func add(_ entry: RevenueEntry) {
        switch entry.kind {
        case .purchase, .renewal:
            payments += 1
            paid += entry.gross
            if entry.subscription {
                if entry.kind == .renewal {
                    renewals += 1
                } else if entry.gross == 0 {
                    trials += 1
                } else {
                    starts += 1
                }
            }
        case .refund, .revocation:
            takeBacks += 1
            givenBack += entry.gross
        case .reversal:
            givenBack += entry.gross
        }
        proceeds += entry.proceeds
        tax += entry.tax ?? 0
        if entry.estimated { estimated += 1 }
    }

    /// How an entry written on `day` moves active subscriptions: a paid or trial period (or a
    /// reversal that restores one) counts from that day to the day it ends; a first take-back
    /// ends it that day instead. Nothing for a period that had ended by the day it was
    /// written, nor for what is not a subscription. Each movement is (day, ±1).
    public static func movements(of entry: RevenueEntry, on day: String) -> [(day: String, sign: Int)] {
        guard entry.subscription, let ends = entry.periodEnds.map(Self.day(of:)), ends > day else { return [] }
        switch entry.kind {
        case .purchase, .renewal, .reversal: return [(day, 1), (ends, -1)]
        case .refund, .revocation: return entry.step == 1 ? [(day, -1), (ends, 1)] : []
        }
    }

    /// Adds `other`'s figures to these (a period's days, a window's periods).
    public mutating func add(_ other: RevenueDay) {
        payments += other.payments
        paid += other.paid
        takeBacks += other.takeBacks
        givenBack += other.givenBack
        proceeds += other.proceeds
        estimated += other.estimated
        starts += other.starts
        trials += other.trials
        renewals += other.renewals
        conversions += other.conversions
        tax += other.tax
        subscribers += other.subscribers
        recurring += other.recurring
    }

    public static let columns = [
        "day", "app", "store", "currency", "payments", "paid", "take_backs", "given_back", "proceeds", "estimated",
        "starts", "trials", "renewals", "conversions", "tax", "subscribers", "recurring",
    ]

    /// The figures after the key, in ``columns``' order.
    var values: [(any SQLConvertible)?] {
        [
            key.day, key.app, key.store, key.currency, payments, paid, takeBacks, givenBack, proceeds, estimated,
            starts, trials, renewals, conversions, tax, subscribers, recurring,
        ]
    }

    /// Adds `entries`, written at `now`, to their days: one statement, each day's row once, in
    /// key order (two PostgreSQL writers then never wait on each other's rows in a cycle).
    /// `converting`: the subscriptions (original transaction ids) whose first paid period
    /// after a free trial is among `entries` (``converting(_:_:)``, asked before they are written).
    public static func add(
        _ entries: [RevenueEntry], on now: Date, converting: Set<String> = [], _ db: any SQLSession
    ) async throws {
        guard !entries.isEmpty else { return }
        let day = Self.day(of: now)
        var days: [Key: RevenueDay] = [:]
        var converted: Set<String> = []
        for entry in entries {
            let key = Key(day: day, app: entry.app, store: entry.store, currency: entry.currency)
            days[key, default: RevenueDay(key: key)].add(entry)
            if entry.kind == .renewal, entry.gross > 0, converting.contains(entry.originalTransactionID),
                converted.insert(entry.originalTransactionID).inserted
            {
                days[key]?.conversions += 1
            }
            for (moved, sign) in movements(of: entry, on: day) {
                let key = Key(day: moved, app: entry.app, store: entry.store, currency: entry.currency)
                days[key, default: RevenueDay(key: key)].subscribers += sign
                days[key, default: RevenueDay(key: key)].recurring += Int64(sign) * (entry.monthlyRecurring ?? 0)
            }
        }
        let sums = columns.dropFirst(4).map { "\($0) = revenue_days.\($0) + excluded.\($0)" }
        try await db.insert(
            into: "revenue_days", columns: columns,
            rows: days.values.sorted { $0.key < $1.key }.map(\.values),
            suffix: "ON CONFLICT (day, app, store, currency) DO UPDATE SET " + sums.joined(separator: ", "))
    }

    /// Of the subscriptions paid again in `entries`, those that began with a free trial and
    /// have no paid period after it yet: the ones `entries` convert. Asked before `entries`
    /// are written.
    public static func converting(_ entries: [RevenueEntry], _ db: any SQLSession) async throws -> Set<String> {
        let renewed = Set(
            entries.filter { $0.subscription && $0.kind == .renewal && $0.gross > 0 }.map(\.originalTransactionID))
        guard !renewed.isEmpty else { return [] }
        let rows = try await db.rows(
            """
            SELECT DISTINCT original_transaction_id FROM revenue_entries trial
            WHERE original_transaction_id IN (?) AND subscription AND kind = 'purchase' AND gross = 0
              AND NOT EXISTS (SELECT 1 FROM revenue_entries paid
                WHERE paid.original_transaction_id = trial.original_transaction_id AND paid.kind = 'renewal'
                  AND paid.gross > 0)
            """, in: renewed.sorted())
        return Set(try rows.map { try $0.get("original_transaction_id") })
    }

    /// Writes `revenue_days` again from the entries: what an operator runs if the two ever
    /// disagree (they are written in one transaction, so they should not).
    /// - Returns: the days written.
    @discardableResult
    public static func rebuild(_ db: any SQLSession) async throws -> Int {
        try await db.execute("DELETE FROM revenue_days")
        let day = db.dialect.truncated("created_at", toHour: false)
        let ends = db.dialect.truncated("period_ends", toHour: false)
        // Entries that move active subscriptions (``movements(of:on:)``), and which way.
        let moves = """
            subscription AND period_ends IS NOT NULL AND \(ends) > \(day) \
            AND (kind IN ('purchase', 'renewal', 'reversal') OR (kind IN ('refund', 'revocation') AND step = 1))
            """
        let sign = "CASE WHEN kind IN ('refund', 'revocation') THEN -1 ELSE 1 END"
        let figures = columns.dropFirst(4)
        return try await db.execute(
            """
            INSERT INTO revenue_days (\(columns.joined(separator: ", ")))
            SELECT day, app, store, currency, \(figures.map { "SUM(\($0))" }.joined(separator: ", "))
            FROM (
              SELECT \(day) AS day, app, store, currency,
                CASE WHEN kind IN ('purchase', 'renewal') THEN 1 ELSE 0 END AS payments,
                CASE WHEN kind IN ('purchase', 'renewal') THEN gross ELSE 0 END AS paid,
                CASE WHEN kind IN ('refund', 'revocation') THEN 1 ELSE 0 END AS take_backs,
                CASE WHEN kind IN ('refund', 'revocation', 'reversal') THEN gross ELSE 0 END AS given_back,
                proceeds, CASE WHEN estimated THEN 1 ELSE 0 END AS estimated,
                CASE WHEN subscription AND kind = 'purchase' AND gross > 0 THEN 1 ELSE 0 END AS starts,
                CASE WHEN subscription AND kind = 'purchase' AND gross = 0 THEN 1 ELSE 0 END AS trials,
                CASE WHEN subscription AND kind = 'renewal' THEN 1 ELSE 0 END AS renewals,
                CASE WHEN subscription AND kind = 'renewal' AND gross > 0
                  AND EXISTS (SELECT 1 FROM revenue_entries trial WHERE trial.original_transaction_id = e.original_transaction_id
                    AND trial.subscription AND trial.kind = 'purchase' AND trial.gross = 0)
                  AND NOT EXISTS (SELECT 1 FROM revenue_entries paid WHERE paid.original_transaction_id = e.original_transaction_id
                    AND paid.kind = 'renewal' AND paid.gross > 0 AND paid.id < e.id) THEN 1 ELSE 0 END AS conversions,
                COALESCE(tax, 0) AS tax,
                CASE WHEN \(moves) THEN \(sign) ELSE 0 END AS subscribers,
                CASE WHEN \(moves) THEN \(sign) * COALESCE(monthly_recurring, 0) ELSE 0 END AS recurring
              FROM revenue_entries e
              UNION ALL
              SELECT \(ends), app, store, currency, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -(\(sign)),
                -(\(sign)) * COALESCE(monthly_recurring, 0)
              FROM revenue_entries WHERE \(moves)
            ) moved GROUP BY day, app, store, currency
            """)
    }

    /// A moment's UTC day, as `day` keeps it.
    public static func day(of date: Date) -> String {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let civil = CivilTime.civil(fromDays: days)
        return String(format: "%04d-%02d-%02d", civil.year, civil.month, civil.day)
    }

    /// A stored row.
    public init(row: SQLRow) throws {
        self.init(
            key: Key(
                day: try row.get("day"), app: try row.get("app"), store: try row.get("store"),
                currency: try row.get("currency")))
        payments = try row.get("payments")
        paid = try row.get("paid")
        takeBacks = try row.get("take_backs")
        givenBack = try row.get("given_back")
        proceeds = try row.get("proceeds")
        estimated = try row.get("estimated")
        starts = try row.get("starts")
        trials = try row.get("trials")
        renewals = try row.get("renewals")
        conversions = try row.get("conversions")
        tax = try row.get("tax")
        subscribers = try row.get("subscribers")
        recurring = try row.get("recurring")
    }
}
