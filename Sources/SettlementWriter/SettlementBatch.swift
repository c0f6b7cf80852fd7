import Database
import Foundation
import PipelineCore
import Settlement

/// The books a batch of verdicts works on, inside one write transaction: what the batch
/// needs is locked and read up front in a few statements (``prefetch(_:)``), every decision
/// is made in memory against it, and what changed is written at the end in a few statements
/// per table (``flush()``).
///
/// Whatever was not read up front (a path the prefetch did not foresee) is read on demand
/// and kept, so a second look costs nothing.
final class SettlementBatch {
    let db: any SQLSession
    let now: Date
    /// `now` as the database stores it, converted once.
    let stamp: SQLValue
    /// The catalog products with a first-purchase bonus: the only ones an account's purchase
    /// history is read for (none: it is not read).
    let firstPurchaseProducts: [String]
    var books = SettlementBooks()
    /// The revenue entries flushed so far: what the transaction writes, counted by the
    /// metrics once it commits.
    private(set) var revenueWritten: [RevenueEntry] = []
    /// Advisory lock keys this transaction holds (PostgreSQL; SQLite has one writer).
    private var locked: Set<String> = []

    init(db: any SQLSession, now: Date, firstPurchaseProducts: [String]) {
        self.db = db
        self.now = now
        self.stamp = db.stored(now)
        self.firstPurchaseProducts = firstPurchaseProducts
    }

    /// Holds `keys` until the transaction ends: the ones not held yet, in one statement.
    func lock(_ keys: [String]) async throws {
        let missing = Set(keys.filter { !locked.contains($0) })
        guard !missing.isEmpty else { return }
        try await db.lock(Array(missing))
        locked.formUnion(missing)
    }

    /// Writes what the batch changed, and forgets it.
    func flush() async throws {
        revenueWritten += books.writes.revenue
        try await books.writes.flush(db, stamp: stamp, now: now)
        books.writes = PendingWrites()
    }

    // MARK: - Subjects

    func receipt(_ id: String) async throws -> SettlingReceipt? {
        if let cached = books.receipts[id] { return cached }
        try await loadSubjects([id])
        return books.receipts[id] ?? nil
    }

    func notification(_ id: String) async throws -> NotificationRow? {
        if let cached = books.notifications[id] { return cached }
        try await loadSubjects([id])
        return books.notifications[id] ?? nil
    }

    func check(_ id: String) async throws -> SubscriptionCheck? {
        if let cached = books.checks[id] { return cached }
        try await loadSubjects([id])
        return books.checks[id] ?? nil
    }

    /// Receipts first (most verdicts are about one), then notifications and checks for the
    /// ids that are not receipts'.
    func loadSubjects(_ ids: [String]) async throws {
        var rest = ids.filter { books.receipts[$0] == nil }
        guard !rest.isEmpty else { return }
        for receipt in try await db.rows("SELECT \(SettlingReceipt.columns) FROM receipts WHERE id IN (?)", in: rest)
            .map({ try $0.decode(SettlingReceipt.self) })
        {
            books.receipts[receipt.id] = receipt
        }
        for id in rest where books.receipts[id] == nil { books.receipts[id] = .some(nil) }
        rest = rest.filter { books.receipts[$0] == .some(nil) && books.notifications[$0] == nil }
        guard !rest.isEmpty else { return }
        for row in try await db.rows("SELECT * FROM store_notifications WHERE id IN (?)", in: rest) {
            let notification = try row.decode(NotificationRow.self)
            books.notifications[notification.id] = notification
        }
        for id in rest where books.notifications[id] == nil { books.notifications[id] = .some(nil) }
        rest = rest.filter { books.notifications[$0] == .some(nil) && books.checks[$0] == nil }
        guard !rest.isEmpty else { return }
        for row in try await db.rows("SELECT * FROM subscription_checks WHERE id IN (?)", in: rest) {
            let check = try row.decode(SubscriptionCheck.self)
            books.checks[check.id] = check
        }
        for id in rest where books.checks[id] == nil { books.checks[id] = .some(nil) }
    }

    /// The first notification of `app` applied with `uuid`, if any.
    func appliedNotification(uuid: String, app: String) async throws -> NotificationRow? {
        if books.appliedNotifications[uuid] == nil { try await loadAppliedNotifications([uuid]) }
        return books.appliedNotifications[uuid]?[app]
    }

    func loadAppliedNotifications(_ uuids: [String]) async throws {
        let missing = Array(Set(uuids.filter { books.appliedNotifications[$0] == nil }))
        guard !missing.isEmpty else { return }
        for uuid in missing { books.appliedNotifications[uuid] = [:] }
        for row in try await db.rows("SELECT * FROM store_notifications WHERE notification_uuid IN (?)", in: missing) {
            let notification = try row.decode(NotificationRow.self)
            if let uuid = notification.notificationUUID, books.appliedNotifications[uuid]?[notification.app] == nil {
                books.appliedNotifications[uuid, default: [:]][notification.app] = notification
            }
        }
    }

    func order(_ id: String) async throws -> Order? {
        if let cached = books.orders[id] { return cached }
        try await loadOrders([id])
        return books.orders[id] ?? nil
    }

    func loadOrders(_ ids: [String]) async throws {
        let missing = ids.filter { books.orders[$0] == nil }
        guard !missing.isEmpty else { return }
        for order in try await db.rows("SELECT * FROM orders WHERE id IN (?)", in: missing).map({
            try $0.decode(Order.self)
        }) {
            books.orders[order.id] = order
        }
        for id in missing where books.orders[id] == nil { books.orders[id] = .some(nil) }
    }
}
