import Foundation
import GRDB
import PipelineCore

// MARK: - App Store Server Notifications V2: accept, apply, show

extension PipelineDatabase {
    /// Stores a notification Apple posted, in one transaction: when this returns it is
    /// durable, and the intake may answer Apple 200. The relay publishes it with the
    /// receipts (see ``unpublishedReceipts(limit:)``).
    ///
    /// - Parameters:
    ///   - id: made by the caller (a UUID string); the notification's id if it is new.
    ///   - payload: the `signedPayload`, untouched.
    ///   - payloadHash: lower-case hex SHA-256 of the payload. Apple posts the same payload
    ///     again until it is answered; the same hash is the same notification.
    /// - Returns: the notification's id (the stored one, for a payload seen before), and
    ///   whether this call created it.
    public func acceptNotification(id: String, payload: String, payloadHash: String, now: Date) throws -> (
        id: String, created: Bool
    ) {
        try write { db in
            if let first = try InboundNotification.all().filter(payloadHash: payloadHash).fetchOne(db) {
                return (first.id, false)
            }
            try InboundNotification(id: id, payload: payload, payloadHash: payloadHash, now: now).insert(db)
            return (id, true)
        }
    }

    /// A notification's status, and what it was once verified; nil if there is no such one.
    public func notification(id: String) throws -> NotificationDetails? {
        try read { db in
            try InboundNotification.fetchOne(db, id: id)?.details
        }
    }

    /// The `CONSUMPTION_REQUEST`s Apple sent, oldest first, for an operator to answer.
    public func consumptionRequests() throws -> [ConsumptionRequest] {
        try read { db in
            try InboundNotification.all().consumptionRequests().oldestFirst().fetchAll(db).compactMap { row in
                guard let uuid = row.notificationUUID else { return nil }
                return ConsumptionRequest(
                    notificationID: row.id, notificationUUID: uuid, transactionID: row.transactionID,
                    originalTransactionID: row.originalTransactionID, productID: row.productID,
                    accountID: row.accountID, environment: row.environment, signedDate: row.signedDate,
                    receivedAt: row.createdAt)
            }
        }
    }

    /// Applies one verdict to a notification that has not ended.
    ///
    /// - `valid` (with the verified notification): once per `notificationUUID`: a row whose
    ///   UUID another row already applied ends `applied` with the reason `duplicate of <id>`
    ///   and changes nothing. Else, by type (each change once, whatever the number of
    ///   notifications that report it; `reason` says why one changed nothing):
    ///   - `REFUND`, `REVOKE`: the transaction's credit is taken back from the account it
    ///     credited (a `refund` / `revoke` debit; its entitlement ends at the revocation
    ///     date). Never credited: recorded as refunded, so that it never credits.
    ///   - `REFUND_REVERSED`: what the refund took is credited again (`refund_reversal`).
    ///   - `DID_RENEW`, `SUBSCRIBED`: the transaction is credited, like a purchase, to the
    ///     account its subscription is bound to; `unbound` if none is yet (a later receipt
    ///     binds and credits it).
    ///   - `EXPIRED`, `GRACE_PERIOD_EXPIRED`: the bound account's entitlement ends at the
    ///     transaction's expiry or now, whichever is earlier.
    ///   - `DID_FAIL_TO_RENEW` / `GRACE_PERIOD`: the entitlement lasts until the grace period ends.
    ///   - `CONSUMPTION_REQUEST`: recorded for an operator (``consumptionRequests()``).
    ///   - `TEST` and any other type: recorded, nothing else.
    /// - `rejected`, `dead`: it ends so, with the reason. `retrying`: progress only.
    func apply(
        _ verdict: Verdict, to row: InboundNotification, catalog: Catalog, now: Date, _ db: Database
    ) throws -> VerdictResult {
        var row = row
        guard !row.status.isFinal else {
            return .notificationAlreadyFinal(notificationID: row.id, status: row.status)
        }
        guard let outcome = verdict.outcome else {
            return .unknownOutcome(receiptID: row.id, outcome: verdict.rawOutcome)
        }
        row.attempts = max(row.attempts, verdict.attempts)
        row.environment = verdict.environment ?? row.environment
        row.updatedAt = now

        switch outcome {
        case .valid:
            guard let notification = verdict.notification else {
                throw InvalidVerdict(reason: "a valid verdict for notification \(row.id) carries no notification")
            }
            try apply(notification, to: &row, catalog: catalog, now: now, db)
        case .rejected:
            row.status = .rejected
            row.reason = Self.nonEmpty(verdict.reason) ?? "rejected"
        case .retrying:
            row.status = .retrying
            row.reason = Self.nonEmpty(verdict.reason) ?? row.reason
        case .dead:
            row.status = .dead
            row.reason = Self.nonEmpty(verdict.reason) ?? "dead-lettered"
        }
        try row.update(db)
        return .notificationApplied(notificationID: row.id, status: row.status, reason: row.reason)
    }

    private func apply(
        _ notification: AppleNotification, to row: inout InboundNotification, catalog: Catalog, now: Date,
        _ db: Database
    ) throws {
        guard Self.nonEmpty(notification.notificationUUID) != nil else {
            throw InvalidVerdict(reason: "notification \(row.id) has no notificationUUID")
        }
        row.type = notification.rawType
        row.subtype = notification.subtype
        row.environment = notification.environment ?? row.environment
        row.signedDate = notification.signedDate
        row.transactionID = notification.transaction?.transactionID
        row.originalTransactionID = notification.transaction?.originalTransactionID
        row.productID = notification.transaction?.productID
        row.status = .applied

        if let first = try InboundNotification.all().filter(notificationUUID: notification.notificationUUID)
            .fetchOne(db)
        {
            // Apple signed it again (a new payload, so a new row): it was applied once already.
            row.reason = "duplicate of \(first.id)"
            row.accountID = first.accountID
            return
        }
        row.notificationUUID = notification.notificationUUID
        let effect = try Self.effect(of: notification, row: row, catalog: catalog, now: now, db)
        row.reason = effect.reason
        row.accountID = effect.accountID
    }

    /// What a notification did: why it changed nothing (nil when it did), and the account
    /// it changed or concerns.
    private struct Effect {
        var reason: String?
        var accountID: String?
    }

    private static func effect(
        of notification: AppleNotification, row: InboundNotification, catalog: Catalog, now: Date,
        _ db: Database
    ) throws -> Effect {
        let cause = Cause(notificationID: row.id, notificationUUID: notification.notificationUUID)
        let environment = notification.environment
        guard let kind = notification.type else { return Effect(reason: "ignored") }
        if kind == .test { return Effect() }
        guard let transaction = notification.transaction else { return Effect(reason: "no_transaction") }

        switch kind {
        case .refund, .revoke:
            switch try takeBack(
                transaction, kind: kind == .revoke ? .revoke : .refund, at: transaction.cancellationDate,
                environment: environment, cause: cause, now: now, db)
            {
            case .debited(let accountID): return Effect(accountID: accountID)
            case .alreadyTakenBack(let accountID): return Effect(reason: "already_refunded", accountID: accountID)
            case .recordedBeforeCredit: return Effect(reason: "refunded_before_credit")
            }

        case .refundReversed:
            switch try restore(transaction, cause: cause, now: now, db) {
            case .restored(let accountID): return Effect(accountID: accountID)
            case .refundForgotten: return Effect(reason: "refund_forgotten_before_credit")
            case .notRefunded(let accountID): return Effect(reason: "not_refunded", accountID: accountID)
            }

        case .didRenew, .subscribed:
            return try renew(transaction, catalog: catalog, environment: environment, cause: cause, now: now, db)

        case .expired, .gracePeriodExpired:
            guard let accountID = try boundAccount(originalTransactionID: transaction.originalTransactionID, db) else {
                return Effect(reason: "unbound")
            }
            guard let name = try entitlementName(of: transaction, catalog: catalog, db),
                let entitlement = try Entitlement.end(
                    db, accountID: accountID, name: name, at: min(transaction.expiresDate ?? now, now), now: now)
            else {
                return Effect(reason: "no_entitlement", accountID: accountID)
            }
            let known = try AppleTransaction.fetchOne(db, id: transaction.transactionID)
            var event = TransactionEventData(transaction, credit: Credit(), notificationUUID: cause.notificationUUID)
            event.entitlement = name
            event.expiresAt = entitlement.expiresAt
            try OutboxEntry(
                type: .subscriptionExpired, receiptID: known?.receiptID, notificationID: cause.notificationID,
                accountID: accountID, data: event, now: now
            ).insert(db)
            return Effect(accountID: accountID)

        case .didFailToRenew:
            guard notification.subtype == "GRACE_PERIOD" else { return Effect(reason: "ignored") }
            guard let accountID = try boundAccount(originalTransactionID: transaction.originalTransactionID, db) else {
                return Effect(reason: "unbound")
            }
            guard let graceEnd = notification.gracePeriodExpiresDate else {
                return Effect(reason: "no_grace_period", accountID: accountID)
            }
            guard let name = try entitlementName(of: transaction, catalog: catalog, db),
                try Entitlement.keep(db, accountID: accountID, name: name, until: graceEnd, now: now) != nil
            else {
                return Effect(reason: "no_entitlement", accountID: accountID)
            }
            return Effect(accountID: accountID)

        case .consumptionRequest:
            let known = try AppleTransaction.fetchOne(db, id: transaction.transactionID)
            let accountID =
                try known?.accountID
                ?? boundAccount(originalTransactionID: transaction.originalTransactionID, db)
            return Effect(reason: "consumption_request", accountID: accountID)

        case .test:
            return Effect()
        }
    }

    /// `DID_RENEW`, `SUBSCRIBED`: a new transaction of a subscription, credited once to the
    /// account the subscription is bound to, and to no other. A subscription not bound yet
    /// (its receipt never arrived) binds through its `appAccountToken`, if the token is known:
    /// a lost receipt must not lose the payment.
    private static func renew(
        _ transaction: VerifiedTransaction, catalog: Catalog, environment: String?, cause: Cause,
        now: Date, _ db: Database
    ) throws -> Effect {
        let binding: Binding
        if let bound = try boundAccount(originalTransactionID: transaction.originalTransactionID, db) {
            binding = Binding(accountID: bound, path: .originalTransaction)
        } else if let token = transaction.appAccountToken?.lowercased(),
            let owner = try AppAccountToken.fetchOne(db, key: token)
        {
            binding = Binding(accountID: owner.accountID, path: .appAccountToken)
        } else {
            return Effect(reason: "unbound")
        }
        let accountID = binding.accountID
        if let known = try AppleTransaction.fetchOne(db, id: transaction.transactionID) {
            let outcome: TransactionOutcome = known.state == .credited ? .alreadyCredited : .refunded
            return Effect(reason: outcome.rawValue, accountID: accountID)
        }
        if transaction.cancellationDate != nil {
            // Refunded already: recorded, so that no receipt credits it either.
            try AppleTransaction(
                transaction, environment: environment, cause: cause, accountID: nil, state: .refunded, now: now
            ).insert(db)
            return Effect(reason: TransactionOutcome.refunded.rawValue, accountID: accountID)
        }
        guard let product = catalog.resolve(appleProductID: transaction.productID)?.product else {
            // Not recorded: once the catalog sells the product, a receipt credits it.
            return Effect(reason: TransactionOutcome.unknownProduct.rawValue, accountID: accountID)
        }
        let credit = try credit(
            transaction, to: accountID, product: product, environment: environment, cause: cause, binding: binding,
            now: now, db)
        try OutboxEntry(
            type: .subscriptionRenewed, receiptID: nil, notificationID: cause.notificationID, accountID: accountID,
            data: TransactionEventData(transaction, credit: credit, notificationUUID: cause.notificationUUID),
            now: now
        ).insert(db)
        return Effect(accountID: accountID)
    }

    /// The entitlement a subscription's transaction concerns: the catalog's, else the one
    /// its first credited transaction granted.
    private static func entitlementName(
        of transaction: VerifiedTransaction, catalog: Catalog, _ db: Database
    ) throws -> String? {
        if let name = catalog.resolve(appleProductID: transaction.productID)?.product.entitlement { return name }
        return try AppleTransaction.all().bound(originalTransactionID: transaction.originalTransactionID)
            .fetchOne(db)?.entitlement
    }
}
