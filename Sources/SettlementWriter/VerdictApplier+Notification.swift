import Database
import Foundation
import PipelineCore
import Settlement

// MARK: - Store notifications: each applied once, by notificationUUID (Google's: the Pub/Sub message id)

extension VerdictApplier {
    /// Applies one verdict to a notification that has not ended.
    ///
    /// A `valid` verdict (with the verified notification) applies once per
    /// `notificationUUID`: a row whose UUID another row already applied ends `applied` with
    /// the reason `duplicate of <id>` and changes nothing. Else its type becomes one
    /// settlement event; `reason` says why it changed nothing, when it did not.
    func apply(_ verdict: Verdict, to row: NotificationRow) async throws -> VerdictResult {
        var row = row
        let step = VerdictStep(verdict, hasEnded: row.status.isFinal)
        switch step {
        case .alreadyEnded: return .notificationAlreadyFinal(notificationID: row.id, status: row.status)
        case .unknownOutcome(let raw): return .unknownOutcome(receiptID: row.id, outcome: raw)
        case .retrying, .ended, .settle: break
        }
        row.attempts = max(row.attempts, verdict.attempts)
        row.environment = verdict.environment ?? row.environment
        row.updatedAt = now
        switch step {
        case .retrying(let reason):
            row.status = .retrying
            row.reason = reason ?? row.reason
        case .ended(let ending, let reason):
            row.status = ending == .dead ? .dead : .rejected
            row.reason = reason
        case .settle:
            guard let notification = verdict.notification else {
                throw SettlementRefusal("a valid verdict for notification \(row.id) carries no notification")
            }
            try await apply(notification, to: &row)
        case .alreadyEnded, .unknownOutcome:
            break
        }
        batch.books.notifications[row.id] = row
        batch.books.writes.notifications[row.id] = row
        if let uuid = row.notificationUUID, batch.books.appliedNotifications[uuid]?[row.app] == nil {
            // A second row of the same notification later in the batch is its duplicate.
            batch.books.appliedNotifications[uuid, default: [:]][row.app] = row
        }
        return .notificationApplied(notificationID: row.id, status: row.status, reason: row.reason)
    }

    private func apply(_ notification: StoreNotification, to row: inout NotificationRow) async throws {
        guard !notification.notificationUUID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw SettlementRefusal("notification \(row.id) has no notificationUUID")
        }
        row.type = notification.rawType
        row.subtype = notification.subtype
        row.environment = notification.environment ?? row.environment
        row.signedDate = notification.signedDate
        row.transactionID = notification.transaction?.transactionID
        row.originalTransactionID = notification.transaction?.originalTransactionID
        row.productID = notification.transaction?.productID
        row.status = .applied

        // Two rows of one notification, settled at once by two fulfillers, take turns.
        try await batch.lock(["notification:\(notification.notificationUUID)"])
        if let first = try await batch.appliedNotification(uuid: notification.notificationUUID, app: row.app) {
            // Apple signed it again (a new payload, so a new row): it was applied once already.
            row.reason = "duplicate of \(first.id)"
            row.accountID = first.accountID
            return
        }
        row.notificationUUID = notification.notificationUUID
        var notification = notification
        if let transaction = notification.transaction, transaction.productID.isEmpty {
            // Google's voided purchase (or chargeback review) names its order, not its product:
            // what was bought is what was credited. Never credited here, there is nothing to take back.
            guard
                let recorded = try await recorded(transaction.transactionID, cancelledAt: transaction.cancellationDate)
            else {
                row.reason = "unknown_transaction"
                return
            }
            notification.transaction = recorded
            row.productID = recorded.productID
            row.originalTransactionID = recorded.originalTransactionID
        }
        switch Self.event(of: notification, id: row.id, app: row.app, store: row.store) {
        case .settle(let event):
            let decision = try await settle(event)
            row.reason = decision.reason
            row.accountID = decision.accountID
            // The account a store named may be new to us even when nothing was credited (a web
            // shop's payment refunded before it was read): the row names it, so it exists.
            if let concerned = decision.accountID { try await batch.apply([.openAccount(concerned)]) }
            if decision.credit != nil, let transaction = notification.transaction {
                oweConfirmation(transaction, store: row.store, receiptID: nil, account: decision.accountID)
            }
        case .nothing(let reason):
            row.reason = reason
        }
    }

    private enum NotificationEffect {
        case settle(SettlementEvent)
        /// Recorded, and nothing else: why (nil for a `TEST`).
        case nothing(String?)
    }

    /// The settlement event a notification reports, by its type.
    private static func event(of notification: StoreNotification, id: String, app: String, store: String)
        -> NotificationEffect
    {
        let cause = Cause(
            app: app, notificationID: id, notificationUUID: notification.notificationUUID,
            environment: notification.environment, store: store)
        guard let kind = notification.type else { return .nothing("ignored") }
        if kind == .test { return .nothing(nil) }
        guard let transaction = notification.transaction else { return .nothing("no_transaction") }
        switch kind {
        case .refund: return .settle(.takenBack(transaction, kind: .refund, cause: cause))
        case .revoke: return .settle(.takenBack(transaction, kind: .revoke, cause: cause))
        case .refundReversed: return .settle(.refundReversed(transaction, cause: cause))
        case .didRenew, .subscribed: return .settle(.transactionVerified(transaction, source: .notification(cause)))
        case .expired, .gracePeriodExpired: return .settle(.expired(transaction, cause: cause))
        case .didFailToRenew:
            guard notification.subtype == "GRACE_PERIOD" else { return .nothing("ignored") }
            return .settle(.gracePeriod(transaction, until: notification.gracePeriodExpiresDate, cause: cause))
        case .consumptionRequest: return .settle(.consumptionRequest(transaction, cause: cause))
        case .test: return .nothing(nil)
        }
    }
}
