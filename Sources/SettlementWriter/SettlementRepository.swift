import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - Fulfilment: apply verdicts to receipts, notifications, checks, accounts and the outbox

/// The fulfiller's store: applies verdicts and operators' adjustments through the settlement engine.
///
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct SettlementRepository: Sendable {
    let database: any SQLDatabase
    /// Told the revenue entries of each transaction once it has committed (the fulfiller's
    /// revenue counters).
    let revenueCommitted: (@Sendable ([RevenueEntry]) -> Void)?

    public init(_ database: any SQLDatabase, revenueCommitted: (@Sendable ([RevenueEntry]) -> Void)? = nil) {
        self.database = database
        self.revenueCommitted = revenueCommitted
    }

    /// The database's name for the fulfiller's spans.
    public var databaseSystem: DatabaseSystemName { DatabaseSystemName(database) }
    /// Where a loop applying batch after batch runs its transactions with the fewest hops
    /// (``SQLDatabase/makeWriteExecutor()``).
    public func makeWriteExecutor() -> (any TaskExecutor)? { database.makeWriteExecutor() }
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
    ///
    /// A batch that fails for what one of its verdicts holds (``SQLError/Blame/work``: a
    /// value the database refuses when the batch is written) is applied again in halves, and
    /// theirs, until the verdict at fault stands alone and is reported `invalid` with the
    /// reason: one bad value costs a few transactions, never the batch.
    ///
    /// Each account is priced by its app's catalog (``AppCatalogs``).
    public func apply(_ verdicts: [Verdict], catalogs: AppCatalogs, now: Date) async throws -> [VerdictResult] {
        guard !verdicts.isEmpty else { return [] }
        guard verdicts.count <= Self.mostPerTransaction else {
            var results: [VerdictResult] = []
            for start in stride(from: 0, to: verdicts.count, by: Self.mostPerTransaction) {
                let part = verdicts[start..<min(start + Self.mostPerTransaction, verdicts.count)]
                results += try await apply(Array(part), catalogs: catalogs, now: now)
            }
            return results
        }
        do {
            let (results, revenue) = try await database.transaction { db in
                try await apply(verdicts, catalogs: catalogs, now: now, db)
            }
            if !revenue.isEmpty { revenueCommitted?(revenue) }
            return results
        } catch  where SQLError.blame(error) == .work {
            guard verdicts.count > 1 else { return [.invalid(receiptID: verdicts[0].receiptID, reason: "\(error)")] }
            let middle = verdicts.count / 2
            let first = try await apply(Array(verdicts[..<middle]), catalogs: catalogs, now: now)
            return first + (try await apply(Array(verdicts[middle...]), catalogs: catalogs, now: now))
        }
    }

    /// Verdicts settled in one transaction at most; more are settled in several, one after
    /// another (each is idempotent, so a crash between them only redoes the first ones). A
    /// verdict takes about four advisory locks on PostgreSQL, whose lock table holds
    /// `max_locks_per_transaction` × `max_connections` (6,400 by default) for every session:
    /// a backlog of packed messages once asked for 19,569 in one transaction, and every
    /// session's next lock failed with "out of shared memory" until the fulfiller gave up
    /// (`iap-lab chaos --power --postgres --soak`).
    public static let mostPerTransaction = 256

    /// ``apply(_:catalogs:now:)`` with one catalog for every account.
    public func apply(_ verdicts: [Verdict], catalog: Catalog, now: Date) async throws -> [VerdictResult] {
        try await apply(verdicts, catalogs: AppCatalogs(catalog), now: now)
    }

    /// ``apply(_:catalogs:now:)`` in the caller's transaction: the batch's subjects, transactions
    /// and accounts are locked in one order as they are read (``SettlementBatch/prefetch(_:)``),
    /// so that two fulfillers given overlapping batches (a redelivery) wait for each other.
    func apply(_ verdicts: [Verdict], catalogs: AppCatalogs, now: Date, _ db: any SQLSession) async throws
        -> (result: [VerdictResult], revenue: [RevenueEntry])
    {
        try await VerdictApplier.withRevenue(db, catalogs: catalogs, now: now) { applier in
            let results = try await applier.apply(verdicts)
            applier.batch.books.writes.trace(verdicts)
            return results
        }
    }
}
