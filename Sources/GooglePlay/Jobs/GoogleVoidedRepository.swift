import Database
import Foundation
import PipelineCore
import Settlement
import SettlementWriter

// MARK: - Google Play's voided purchases: refunds and chargebacks, each step debited once

/// Refunds and chargebacks Google lists in its voided purchases, taken back through the
/// settlement engine as Apple's refunds are (as far as the order is voided so far, from the
/// account credited, following the catalog's `negative_balance`), and how far each app's
/// list has been read (`google_voided_polls`).
public struct GoogleVoidedRepository: Sendable {
    let database: any SQLDatabase
    /// The app whose list is read (``AppScope/key``): it takes back its own purchases only.
    let app: String

    /// - Parameter app: The app whose service account reads the list.
    public init(_ database: any SQLDatabase, app: AppScope = .single) {
        self.database = database
        self.app = app.key
    }

    /// What taking back one voided purchase did (``SettlementRepository/TakeBackOutcome``):
    /// `unknown` when it was never credited here (Google now answers the token cancelled, so
    /// it never will be).
    public typealias Outcome = SettlementRepository.TakeBackOutcome

    /// Takes back the purchase Google voided, known by its transaction id (Google's order id):
    /// all of it, or `units` of it voided so far (quantity-based partial refunds, all of the
    /// order's together), less what earlier refunds of it took. The settlement writer's one
    /// transaction (``SettlementRepository/takeBack(transactionID:units:cancelledAt:app:catalog:now:)``).
    public func takeBack(
        transactionID: String, units: Int? = nil, voidedAt: Date, catalog: Catalog, now: Date
    ) async throws -> Outcome {
        try await SettlementRepository(database).takeBack(
            transactionID: transactionID, units: units, cancelledAt: voidedAt, app: app, catalog: catalog, now: now)
    }

    /// Where the last complete read of `packageName`'s list ended.
    public func polledUntil(_ packageName: String) async throws -> Date? {
        try await database.snapshot { db in
            try await db.value("SELECT polled_until FROM google_voided_polls WHERE package_name = ?", [packageName])
        }
    }

    /// Records a complete read of `packageName`'s list up to `moment`.
    public func setPolledUntil(_ moment: Date, for packageName: String) async throws {
        try await database.transaction { db in
            try await db.execute(
                """
                INSERT INTO google_voided_polls (package_name, polled_until) VALUES (?, ?)
                ON CONFLICT (package_name) DO UPDATE SET polled_until = excluded.polled_until
                """, [packageName, moment])
        }
    }
}
