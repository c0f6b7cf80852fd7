import Database
import Foundation
import PipelineCore
import Settlement

/// Revenue entries for the transactions credited before the revenue ledger began (schema
/// v21), so that its figures reach back as far as the coin ledger: each payment priced as a
/// live one is, from the stored evidence where it holds a price (``StoredEvidence``), else from
/// the catalog and marked estimated; a take-back of all of it for one refunded or revoked since.
///
/// Entries are numbered as they are dated, which the ledger's reads rely on (a span of time is
/// a range of the key). Those written here are older than every live one, so they take the
/// ids below them, negative and in date order; and the back-fill runs once: a ledger that has
/// such entries is left as it is.
public struct RevenueBackfill: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }

    /// What a transaction was first carried by, as stored.
    public struct StoredEvidence: Sendable {
        public var transactionID: String
        /// The receipt's kind and payload (`storekit2`, a JWS), when a receipt carried it.
        public var receiptKind: String?
        public var receiptPayload: String?
        /// The notification's store and payload, when a notification carried it.
        public var notificationStore: String?
        public var notificationPayload: String?

        public init(
            transactionID: String, receiptKind: String? = nil, receiptPayload: String? = nil,
            notificationStore: String? = nil, notificationPayload: String? = nil
        ) {
            self.transactionID = transactionID
            self.receiptKind = receiptKind
            self.receiptPayload = receiptPayload
            self.notificationStore = notificationStore
            self.notificationPayload = notificationPayload
        }
    }

    /// A price found in stored evidence, in the units ``VerifiedTransaction`` keeps.
    public struct StoredPrice: Hashable, Sendable {
        public var micros: Int64
        public var currency: String
        public var country: String?

        public init(micros: Int64, currency: String, country: String?) {
            self.micros = micros
            self.currency = currency
            self.country = country
        }
    }

    /// What a run did.
    public struct Outcome: Hashable, Sendable {
        /// Entries written, and of the payments, those priced by the store's stored word.
        public var entries = 0
        public var storePriced = 0
        public var estimated = 0
        /// Transactions left without an entry: no price anywhere, or a product no longer sold.
        public var unpriced = 0
        /// Back-filled entries already there: nothing was done.
        public var alreadyBackfilled = 0
    }

    /// Writes the entries, and the days again from the whole ledger, in one transaction.
    /// - Parameters:
    ///   - catalogs: each app's catalog, by which payments are priced and commissioned.
    ///   - price: the price a transaction's stored evidence holds, if any.
    public func run(
        catalogs: AppCatalogs, price: @escaping @Sendable (StoredEvidence) -> StoredPrice?, now: Date = Date()
    ) async throws -> Outcome {
        try await database.transaction { db in
            var outcome = Outcome()
            outcome.alreadyBackfilled =
                try await db.row("SELECT COUNT(*) AS n FROM revenue_entries WHERE id < 0")?.get("n") ?? 0
            guard outcome.alreadyBackfilled == 0 else { return outcome }
            // Before the first live entry: what was credited since and has none, the ledger chose not to price.
            let cutoff: Date =
                try await db.row(
                    "SELECT created_at FROM revenue_entries WHERE id = (SELECT MIN(id) FROM revenue_entries)"
                )?.get("created_at") ?? now
            let events = try await Self.events(before: cutoff, db)
            var engines: [String: SettlementEngine] = [:]
            var nextID = -Int64(events.count) - 1
            for chunk in stride(from: 0, to: events.count, by: 500).map({ events[$0..<min($0 + 500, events.count)] }) {
                let facts = try await Self.facts(Set(chunk.map(\.transactionID)), db)
                var rows: [[(any SQLConvertible)?]] = []
                for event in chunk {
                    nextID += 1
                    guard let fact = facts[event.transactionID] else { continue }
                    let catalog = catalogs.catalog(forAccount: fact.accountID)
                    let engine = engines[fact.app] ?? SettlementEngine(catalog: catalog)
                    engines[fact.app] = engine
                    var transaction = fact.transaction
                    let stored = price(fact.evidence)
                    if let stored {
                        (transaction.priceMicros, transaction.currency) = (stored.micros, stored.currency)
                        transaction.country = stored.country
                    }
                    let entries = engine.backfilledRevenue(
                        transaction, catalogProductID: fact.catalogProductID, state: fact.state,
                        accountID: fact.accountID, cause: fact.cause, subscriptionSince: fact.subscriptionSince)
                    guard let entry = event.takeBack ? entries.dropFirst().first : entries.first else {
                        if !event.takeBack { outcome.unpriced += 1 }
                        continue
                    }
                    if !event.takeBack {
                        if entry.estimated { outcome.estimated += 1 } else { outcome.storePriced += 1 }
                    }
                    rows.append([nextID] + entry.values(at: db.stored(min(event.date, cutoff))))
                }
                try await db.insert(
                    into: "revenue_entries", columns: ["id"] + RevenueEntry.storedColumns, rows: rows,
                    overridingIdentity: db.dialect == .postgres)
                outcome.entries += rows.count
            }
            if outcome.entries > 0 { try await RevenueDay.rebuild(db) }
            return outcome
        }
    }

    /// A payment, or the take-back of one, as the ledger would have dated it.
    struct Event {
        var date: Date
        var transactionID: String
        var takeBack: Bool
    }

    /// The payments of credited transactions with no revenue entry recorded before `cutoff`,
    /// and their take-backs, in date order: small rows, whatever the evidence's size.
    static func events(before cutoff: Date, _ db: any SQLSession) async throws -> [Event] {
        let rows = try await db.rows(
            """
            SELECT transaction_id, created_at, updated_at, state FROM store_transactions t
            WHERE account_id IS NOT NULL AND catalog_product_id IS NOT NULL
              AND state IN ('credited', 'refunded', 'revoked') AND created_at < ?
              AND NOT EXISTS (SELECT 1 FROM revenue_entries r WHERE r.transaction_id = t.transaction_id)
            """, [cutoff])
        var events: [Event] = []
        for row in rows {
            let id: String = try row.get("transaction_id")
            events.append(Event(date: try row.get("created_at"), transactionID: id, takeBack: false))
            if try row.get("state", as: String.self) != TransactionState.credited.rawValue {
                events.append(Event(date: try row.get("updated_at"), transactionID: id, takeBack: true))
            }
        }
        return events.sorted {
            ($0.date, $0.transactionID, $0.takeBack ? 1 : 0) < ($1.date, $1.transactionID, $1.takeBack ? 1 : 0)
        }
    }
}
