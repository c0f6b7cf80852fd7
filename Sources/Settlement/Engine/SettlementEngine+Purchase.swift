import Foundation
import PipelineCore

// MARK: - A verified transaction: credit it once, to the account it is bound to

extension SettlementEngine {
    func verified(
        _ transaction: VerifiedTransaction, source: SettlementEvent.Source, state: SettlementState, now: Date
    ) throws(SettlementRefusal) -> Decision {
        var transaction = transaction
        if transaction.isUpgraded == true, transaction.cancellationDate != nil {
            // Ended by an upgrade, not refunded: once credited it keeps what it gave until then.
            if state.known != nil { return upgraded(transaction, cause: source.cause, state: state, now: now) }
            transaction = Self.upgradedPeriod(transaction)
        }
        // A notification of a subscription that no receipt bound yet, and whose token is
        // unknown, waits: the receipt that arrives later binds and credits it.
        let notificationBinding = Self.bind(transaction, source: source, state: state)
        if case .notification = source, notificationBinding == nil {
            let invalid = transaction.storeAccountID.map { !AccountID.isValid($0, appKey: source.cause.app) } ?? false
            return Decision(reason: invalid ? "invalid_store_account_id" : "unbound")
        }
        let concerned = notificationBinding?.accountID

        if let known = state.known {
            if transaction.cancellationDate != nil, known.state == .credited {
                // Apple refunded it after it was credited: take the credit back, once.
                var decision = takeBack(
                    transaction, kind: source.takeBackKind, cause: source.cause, state: state, now: now)
                decision.outcome = .refunded
                return decision
            }
            let outcome: TransactionOutcome =
                known.state == .credited || known.state == .unpaid ? .alreadyCredited : .refunded
            return .unchanged(outcome, accountID: concerned)
        }
        if transaction.cancellationDate != nil {
            // Recorded, so that no later receipt credits it either.
            var decision = Decision.unchanged(.refunded, accountID: concerned)
            decision.effects = [.recordTransaction(Self.record(transaction, cause: source.cause, state: .refunded))]
            return decision
        }
        // Apple's product decides what is credited, whatever was ordered. An unknown one is
        // not recorded: once the catalog sells it, a resent receipt credits it.
        guard let resolution = catalog.resolve(storeProductID: transaction.productID, ordered: source.order?.product),
            let binding = notificationBinding ?? Self.bind(transaction, source: source, state: state)
        else {
            return .unchanged(.unknownProduct, accountID: concerned)
        }
        return try credit(transaction, product: resolution, binding: binding, source: source, state: state, now: now)
    }

    /// The account a verified transaction credits, by the first rule that applies:
    /// 1. a renewal of a subscription already bound: the account that first bought it,
    ///    whatever the receipt, its order or its token claim; likewise a subscription that
    ///    replaces one (Google's `linkedPurchaseToken`): the replaced one's account;
    /// 2. the account of the order the receipt names (for the transaction that pays it);
    /// 3. the account behind the transaction's `appAccountToken`;
    /// 4. the account that submitted the receipt (or that the check was planned for).
    /// A notification binds by rules 1 and 3, then by the account the store names for it
    /// (read back from the store's API, an id by the API's rules, ``AccountID``, of the
    /// event's app): nil when none applies. Only an account of the event's app binds
    /// (``Cause/app``): another app's order or token is not this purchase's.
    static func bind(
        _ transaction: VerifiedTransaction, source: SettlementEvent.Source, state: SettlementState
    ) -> Binding? {
        if let bound = state.bound?.accountID { return Binding(accountID: bound, path: .originalTransaction) }
        let app = source.cause.app
        if let replaced = state.linked?.accountID, owns(app, replaced) {
            return Binding(accountID: replaced, path: .originalTransaction)
        }
        let owner = state.tokenOwner.flatMap { owns(app, $0) ? $0 : nil }
        switch source {
        case .receipt(_, let claimant, _, _):
            if let order = source.order { return Binding(accountID: order.accountID, path: .order) }
            if let owner { return Binding(accountID: owner, path: .appAccountToken) }
            return Binding(accountID: claimant, path: .submitter)
        case .notification:
            if let owner { return Binding(accountID: owner, path: .appAccountToken) }
            return transaction.storeAccountID.flatMap { named in
                AccountID.isValid(named, appKey: app)
                    ? Binding(accountID: AppScope.stored(named, appKey: app), path: .storeAccount) : nil
            }
        case .subscriptionCheck(_, let accountID, _):
            return Binding(accountID: accountID, path: .originalTransaction)
        }
    }

    /// Records the transaction as credited and credits what the product grants: a ledger
    /// entry for a currency (with a first purchase's bonus), the entitlement extended.
    private func credit(
        _ transaction: VerifiedTransaction, product resolution: Catalog.Resolution, binding: Binding,
        source: SettlementEvent.Source, state: SettlementState, now: Date
    ) throws(SettlementRefusal) -> Decision {
        let product = resolution.product
        let accountID = binding.accountID
        let account = state.account(accountID)
        let cause = source.cause
        var decision = Decision(accountID: accountID)
        decision.outcome = .credited

        if case .receipt(let receiptID, let claimant, _, _) = source, claimant != accountID {
            decision.effects.append(
                .recordConflict(
                    ClaimConflict(
                        transactionID: transaction.transactionID,
                        originalTransactionID: transaction.originalTransactionID, receiptID: receiptID,
                        claimantAccountID: claimant, creditedAccountID: accountID, binding: binding.path)))
        }
        decision.effects.append(.openAccount(accountID))
        var record = Self.record(transaction, cause: cause, state: .credited, accountID: accountID)
        record.entitlement = product.entitlement
        record.catalogProductID = product.productID
        record.orderID = source.order?.orderID
        record.binding = binding.path
        decision.effects.append(.recordTransaction(record))

        var carried = CarriedTransaction(
            transactionID: transaction.transactionID, productID: transaction.productID, outcome: .credited)
        // A family member's access to another's purchase grants the entitlement, never currency.
        if let grant = product.grant, !transaction.isFamilyShared {
            // A subscription that replaces another is no first purchase.
            let bonus =
                (source.isReceipt || source.isNotification && product.kind != .autoRenewable)
                    && !account.purchasedProducts.contains(product.productID) && state.linked == nil
                ? product.rules?.firstPurchase?.bonus?.amount ?? 0 : 0
            let (perUnit, overflow) = grant.amount.multipliedReportingOverflow(by: record.quantity)
            let (amount, bonusOverflow) = perUnit.addingReportingOverflow(bonus)
            guard !overflow, !bonusOverflow else {
                throw SettlementRefusal(
                    "transaction \(transaction.transactionID): quantity \(transaction.quantity) is absurd")
            }
            decision.effects.append(
                .post(
                    LedgerPosting(
                        accountID: accountID, currency: grant.currency, amount: amount, kind: .purchase,
                        receiptID: cause.receiptID, notificationID: cause.notificationID,
                        transactionID: transaction.transactionID)))
            carried.currency = grant.currency
            carried.amount = amount
        }
        var endsAt: Date?
        let (replacing, held) = Self.replaced(
            by: transaction, granting: product.entitlement, account: account, accountID: accountID, now: now)
        decision.effects += replacing
        if let name = product.entitlement {
            let current = held
            let end = EntitlementEnd(
                expiresAt: current.map { EntitlementEnd.later($0.expiresAt, transaction.expiresDate) }
                    ?? transaction.expiresDate,
                originalTransactionID: current?.originalTransactionID ?? transaction.originalTransactionID)
            decision.effects.append(.setEntitlement(accountID: accountID, name: name, end: end))
            carried.entitlement = name
            carried.expiresAt = transaction.expiresDate
            endsAt = end.expiresAt
        }

        let isRenewal = product.kind == .autoRenewable && state.bound != nil
        if let revenue = revenue(
            of: transaction, product: product, accountID: accountID, cause: cause, renewal: isRenewal,
            subscriptionSince: state.bound?.purchaseDate)
        {
            decision.effects.append(.recordRevenue(revenue))
        }

        let renewedElsewhere = source.isReceipt && binding.path == .originalTransaction && source.claimant != accountID
        if !source.isReceipt || renewedElsewhere {
            // A renewal: the subscription's account hears of it, whoever reported it; a
            // one-time purchase no receipt carried is announced as the purchase it is.
            var data = TransactionEventData(transaction, notificationUUID: cause.notificationUUID)
            data.currency = carried.currency
            data.amount = carried.amount
            data.entitlement = carried.entitlement
            data.expiresAt = endsAt
            decision.effects.append(
                .send(
                    Webhook(
                        type: renewedElsewhere || product.kind == .autoRenewable
                            ? .subscriptionRenewed : .purchaseCredited,
                        accountID: accountID, receiptID: cause.receiptID,
                        notificationID: source.announcedNotificationID, data: .transaction(data))))
        }
        if renewedElsewhere {
            decision.outcome = .boundToAnotherAccount
            decision.accountID = nil
            return decision
        }
        if let order = source.order {
            // An order for a product the catalog no longer sells matches only by its id.
            let matches = order.product == nil ? order.productID == product.productID : resolution.matchesOrder
            let closing = OrderClosing(
                orderID: order.orderID, matches: matches,
                reason: matches ? "paid" : "paid for \(product.productID) (Apple's product)",
                receiptID: cause.receiptID, transactionID: transaction.transactionID,
                creditedProductID: product.productID)
            decision.effects.append(.closeOrder(closing))
            decision.order = OrderEventData(
                orderID: order.orderID, status: matches ? "fulfilled" : "mismatched", productID: order.productID,
                creditedProductID: product.productID, mismatched: !matches)
        }
        decision.credit = carried
        return decision
    }

    /// A new row for a transaction Apple reported, first seen by `cause`.
    static func record(
        _ transaction: VerifiedTransaction, cause: Cause, state: TransactionState, accountID: String? = nil
    ) -> TransactionRecord {
        TransactionRecord(
            app: cause.app, transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, quantity: transaction.quantity, environment: cause.environment,
            receiptID: cause.receiptID, notificationID: cause.notificationID, accountID: accountID,
            purchaseDate: transaction.purchaseDate, expiresDate: transaction.expiresDate,
            cancellationDate: transaction.cancellationDate, state: state, entitlement: nil, catalogProductID: nil,
            orderID: nil, binding: nil, offerType: transaction.offerType.map { String($0.prefix(64)) },
            offerID: transaction.offerID.map { String($0.prefix(256)) })
    }
}

extension SettlementEvent.Source {
    var isReceipt: Bool {
        if case .receipt = self { return true }
        return false
    }

    var isNotification: Bool {
        if case .notification = self { return true }
        return false
    }

    var claimant: String? {
        if case .receipt(_, let claimant, _, _) = self { return claimant }
        return nil
    }

    /// The order a receipt names, when it is an order of the receipt's app (another app's
    /// order is not this purchase's).
    var order: OrderClaim? {
        if case .receipt(_, _, let order?, let cause) = self, SettlementEngine.owns(cause.app, order.accountID) {
            return order
        }
        return nil
    }

    /// The Apple notification a webhook announces: the one being applied, if it is one.
    var announcedNotificationID: String? {
        if case .notification(let cause) = self { return cause.notificationID }
        return nil
    }

    /// What a cancellation found in a re-verified transaction is: a scheduler's check asks
    /// for the subscription's state (a revocation), a receipt or notification shows a refund.
    var takeBackKind: TakeBackKind {
        if case .subscriptionCheck = self { return .revoke }
        return .refund
    }
}

extension TransactionEventData {
    init(_ transaction: VerifiedTransaction, notificationUUID: String?) {
        self.init(
            transactionID: transaction.transactionID, originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, currency: nil, amount: nil, entitlement: nil, expiresAt: nil,
            notificationUUID: notificationUUID)
    }

    init(_ known: KnownTransaction, notificationUUID: String?) {
        self.init(
            transactionID: known.transactionID, originalTransactionID: known.originalTransactionID,
            productID: known.productID, currency: nil, amount: nil, entitlement: nil, expiresAt: nil,
            notificationUUID: notificationUUID)
    }
}
