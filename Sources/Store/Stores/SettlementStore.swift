import Foundation
import PipelineCore
import Settlement

// MARK: - Fulfilment: apply verdicts to receipts, notifications, checks, accounts and the outbox

/// The fulfiller's store: applies verdicts and operators' adjustments through the settlement engine.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct SettlementStore: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
        self.database = database
    }
    /// Applies a batch of verdicts in one transaction, in order.
    ///
    /// Each verdict changes what it is about (a receipt, an App Store Server Notification
    /// or a subscription check), the accounts it touches and the outbox together, or not
    /// at all. The money rules are the settlement engine's (module `Settlement`); this
    /// reads the state each event needs and stores the engine's effects. A verdict for
    /// something that already ended changes nothing (it is a redelivery), so applying the
    /// same batch twice is harmless.
    ///
    /// - Returns: one result per verdict, in the same order. A verdict the engine refuses
    ///   (a transaction without a product, say) or that breaks a constraint is `invalid`
    ///   with the reason, and nothing of it is applied.
    public func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date) async throws -> [VerdictResult] {
        guard !verdicts.isEmpty else { return [] }
        return try await database.transaction { db in try await apply(verdicts, catalog: catalog, now: now, db) }
    }

    /// ``apply(_:catalog:now:)`` inside a transaction already open (the dead-letter archive's).
    func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date, _ db: any SQLSession) async throws -> [VerdictResult]
    {
        // What the batch is about, and the accounts it names, locked at once in one order:
        // two fulfillers given overlapping batches (a redelivery) wait for each other
        // instead of deadlocking on the way.
        try await db.lock(
            verdicts.map { "subject:\($0.receiptID)" }
                + verdicts.compactMap { $0.accountID.isEmpty ? nil : "account:\($0.accountID)" })
        return try await VerdictApplier(db: db, catalog: catalog, now: now).apply(verdicts)
    }
}
