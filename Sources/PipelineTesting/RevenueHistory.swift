import Database
import Foundation
import PipelineCore
import Settlement

/// Generated history for the revenue ledger: `transactions` payments spread over the `days`
/// before `now`, in several apps, stores and currencies, some refunded (whole or in part),
/// revoked or reversed, written as the engine writes them (entries, then `revenue_days`
/// rebuilt from them). What the console's revenue pages and the exports are measured over;
/// seeded, so two runs write the same rows.
public struct RevenueHistory: Sendable {
    public var transactions: Int
    public var days: Int
    public var apps: [String]
    public var seed: UInt64

    public init(transactions: Int, days: Int = 365, apps: [String] = [""], seed: UInt64 = 57) {
        self.transactions = transactions
        self.days = days
        self.apps = apps
        self.seed = seed
    }

    /// Stores with their share of payments, in percent.
    static let stores: [(String, Int)] = [
        ("apple", 45), ("google", 35), ("huawei", 5), ("stripe", 5), ("xiaomi", 5), ("amazon", 5),
    ]
    /// Currencies with their share, and a price in minor units.
    static let currencies: [(String, Int, Int64)] = [
        ("USD", 60, 499), ("EUR", 20, 549), ("JPY", 10, 800), ("GBP", 5, 449), ("KWD", 5, 1_500),
    ]

    /// Writes the history, `batch` entries per transaction. - Returns: the entries written.
    @discardableResult
    public func write(into database: any SQLDatabase, now: Date = Date(), batch: Int = 5_000) async throws -> Int {
        var random = SplitMix64(seed: seed)
        let start = now.addingTimeInterval(-Double(days) * 86_400)
        let step = Double(days) * 86_400 / Double(max(transactions, 1))
        var written = 0
        var pending: [(RevenueEntry, Date)] = []
        func flush() async throws {
            guard !pending.isEmpty else { return }
            let rows = pending
            pending = []
            try await database.transaction { db in
                try await db.insert(
                    into: "revenue_entries", columns: RevenueEntry.storedColumns,
                    rows: rows.map { $0.values(at: db.stored($1)) })
            }
        }
        for number in 0..<transactions {
            let at = start.addingTimeInterval(Double(number) * step)
            let store = Self.pick(Self.stores.map { ($0.0, $0.1) }, &random)
            let currency = Self.pick(Self.currencies.map { ($0.0, $0.1) }, &random)
            var price = Self.currencies.first { $0.0 == currency }!.2 * Int64(1 + random.next() % 3)
            let app = apps[Int(random.next() % UInt64(apps.count))]
            let subscription = random.next() % 4 == 0
            let id = "hist-\(seed)-\(number)"
            let rate = subscription && random.next() % 3 == 0 ? 1500 : 3000
            let renewal = subscription && random.next() % 5 != 0
            // A third of the subscriptions start with a free trial: a first period of price 0.
            if subscription && !renewal && random.next() % 3 == 0 { price = 0 }
            var paid = RevenueEntry(
                app: app, store: store, accountID: (app.isEmpty ? "" : app + "/") + "player-\(random.next() % 50_000)",
                transactionID: id,
                originalTransactionID: subscription ? "hist-sub-\(random.next() % 20_000)" : id,
                productID: subscription ? "com.example.monthly" : "com.example.coins500",
                kind: renewal ? .renewal : .purchase, currency: currency, gross: price,
                proceeds: CommissionRates.proceeds(of: price, basisPoints: rate), commissionBasisPoints: rate,
                country: ["USA", "DEU", "JPN", "GBR", "KWT"][Int(random.next() % 5)],
                estimated: store == "google" || store == "amazon", subscription: subscription, receiptID: id)
            if subscription {
                // A month's period: what the subscribers and recurring revenue over time count.
                paid.periodEnds = at.addingTimeInterval(30 * 86_400)
                paid.monthlyRecurring = RevenueEntry.monthly(price, from: at, to: paid.periodEnds)
            }
            pending.append((paid, at))
            // About one payment in twenty is refunded (a fifth of them in two steps), one in a
            // hundred revoked, and one refund in ten reversed, a few days later.
            let fate = random.next() % 100
            if fate < 6, paid.gross > 0 {
                let later = min(now, at.addingTimeInterval(Double(1 + random.next() % 5) * 86_400))
                let partial = fate < 1 ? paid.gross / 2 : paid.gross
                paid.receiptID = nil
                paid.notificationID = "hist-n-\(number)"
                var back = paid
                back.kind = fate == 5 ? RevenueEntry.Kind.revocation : .refund
                back.gross = -partial
                back.proceeds = -CommissionRates.proceeds(of: partial, basisPoints: rate)
                back.step = 1
                pending.append((back, later))
                if fate == 2 {
                    var reversal = paid
                    (reversal.kind, reversal.gross, reversal.proceeds) = (
                        RevenueEntry.Kind.reversal, partial, -back.proceeds
                    )
                    pending.append((reversal, min(now, later.addingTimeInterval(86_400))))
                }
            }
            if pending.count >= batch {
                written += pending.count
                try await flush()
            }
        }
        written += pending.count
        try await flush()
        _ = try await database.transaction { db in try await RevenueDay.rebuild(db) }
        return written
    }

    static func pick(_ shares: [(String, Int)], _ random: inout SplitMix64) -> String {
        var roll = Int(random.next() % 100)
        for (name, share) in shares {
            if roll < share { return name }
            roll -= share
        }
        return shares[0].0
    }
}
