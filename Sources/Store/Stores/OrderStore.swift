import Foundation
import GRDB
import PipelineCore
import Settlement

// MARK: - Orders: what a player may buy, checked before the purchase

/// A `POST /v1/orders` request, checked for shape by the intake.
public struct NewOrder: Hashable, Sendable {
    public var accountID: String
    public var productID: String
    /// A token the app already uses for this account; the server makes one when nil.
    public var appAccountToken: String?

    public init(accountID: String, productID: String, appAccountToken: String? = nil) {
        self.accountID = accountID
        self.productID = productID
        self.appAccountToken = appAccountToken
    }
}

/// Orders made before a purchase, checked against the product's purchase rules, and the binding conflicts purchases made.
///
/// A small store over the pipeline's one database writer: every method is one
/// transaction, run off the caller's thread (GRDB's own queue), so no caller blocks a
/// cooperative thread.
public struct OrderStore: Sendable {
    let database: PipelineDatabase

    public init(_ database: PipelineDatabase) {
        self.database = database
    }
    /// Makes an order if the product's rules allow it now, in one transaction: the rules
    /// are checked against what is committed, and the schema keeps one open order per
    /// account and product, so of two racing requests exactly one wins.
    public func createOrder(_ request: NewOrder, catalog: Catalog, lifetime: Duration, now: Date) async throws
        -> OrderOutcome
    {
        guard let product = catalog.product(request.productID) else { return .unknownProduct }
        do {
            return try await database.write { db in
                // Every refusal comes before the first write: a refused order leaves no trace.
                if let named = request.appAccountToken?.lowercased(),
                    let owner = try AppAccountToken.fetchOne(db, key: named), owner.accountID != request.accountID
                {
                    return .tokenOfAnotherAccount
                }
                try Self.expireOrders(accountID: request.accountID, productID: product.productID, now: now, db)
                let history = try Self.history(
                    accountID: request.accountID, product: product, timeZone: catalog.timeZone, now: now, db)
                if let refusal = product.refusal(at: now, history: history) {
                    return .refused(OrderRefusalReason(code: refusal.code, message: refusal.message))
                }
                try Account.ensure(db, id: request.accountID, now: now)
                let token = try Self.appAccountToken(for: request, now: now, db)
                let first = product.isFirstPurchase(history)
                let order = Order(
                    id: TimeOrderedID.make(), accountID: request.accountID, productID: product.productID,
                    appleProductID: product.appleProductIDToBuy(firstPurchase: first), appAccountToken: token,
                    firstPurchase: first, status: .open, createdAt: now,
                    expiresAt: now.addingTimeInterval(lifetime.seconds), closedAt: nil, closeReason: nil,
                    receiptID: nil, transactionID: nil, creditedProductID: nil)
                try order.insert(db)
                return .created(OrderDetails(order, now: now))
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // Another process's order for the same account and product committed first.
            let open = try await database.read { db in
                try Order.filter(Order.Columns.accountID == request.accountID)
                    .filter(Order.Columns.productID == product.productID)
                    .filter(Order.Columns.status == OrderStatus.open).fetchOne(db)
            }
            let refusal = OrderRefusal.orderAlreadyOpen(orderID: open?.id ?? "another order")
            return .refused(OrderRefusalReason(code: refusal.code, message: refusal.message))
        }
    }

    /// Closes an open order: the player cancelled, or the purchase failed. A payment that
    /// arrives later for it is still credited (a lost order never loses a payment).
    public func cancelOrder(id: String, accountID: String?, reason: String?, now: Date) async throws -> CancelOutcome {
        try await database.write { db in
            guard var order = try Order.fetchOne(db, id: id) else { return .notFound }
            if let accountID, accountID != order.accountID { return .otherAccount }
            guard order.status(at: now) == .open else {
                if order.status == .open { try Self.expire(&order, db) }
                return .notOpen(OrderDetails(order, now: now))
            }
            order.status = .cancelled
            order.closedAt = now
            order.closeReason = reason ?? "cancelled"
            try order.update(db)
            return .cancelled(OrderDetails(order, now: now))
        }
    }

    public func order(id: String, now: Date) async throws -> OrderDetails? {
        try await database.read { db in try Order.fetchOne(db, id: id).map { OrderDetails($0, now: now) } }
    }

    /// Every product of the catalog as the account may buy it now: available or why not,
    /// and at which price (the first purchase's when it applies).
    public func offers(accountID: String, catalog: Catalog, now: Date) async throws -> [ProductOffer] {
        try await database.read { db in
            try catalog.products.map { product in
                let history = try Self.history(
                    accountID: accountID, product: product, timeZone: catalog.timeZone, now: now, db)
                let refusal = product.refusal(at: now, history: history)
                let first = product.isFirstPurchase(history)
                return ProductOffer(
                    productID: product.productID, type: product.rawType,
                    appleProductID: product.appleProductIDToBuy(firstPurchase: first),
                    grant: product.grant.map { Offer.Grant(currency: $0.currency, amount: $0.amount) },
                    entitlement: product.entitlement, available: refusal == nil, unavailableReason: refusal?.code,
                    firstPurchase: first,
                    firstPurchaseBonus: first
                        ? product.rules?.firstPurchase?.bonus.map {
                            Offer.Grant(currency: $0.currency, amount: $0.amount)
                        }
                        : nil,
                    saleFrom: product.rules?.sale?.from, saleUntil: product.rules?.sale?.until,
                    dailyLimit: product.rules?.dailyLimit, ordersToday: history.ordersToday,
                    openOrderID: history.openOrderID)
            }
        }
    }

    /// The purchases a conflict moved to another account than the claimant's, newest first;
    /// with `involving`, those where it is the claimant, the account credited, the receipt,
    /// or the (original) Apple transaction.
    public func bindingConflicts(involving id: String? = nil, limit: Int = 100) async throws -> [BindingConflictDetails]
    {
        try await database.read { db in
            var request = BindingConflict.order(Column("id").desc)
            if let id {
                request = request.filter(
                    [
                        "claimant_account_id", "credited_account_id", "receipt_id", "transaction_id",
                        "original_transaction_id",
                    ].map { Column($0) == id }.joined(operator: .or))
            }
            return try request.limit(limit).fetchAll(db).map(BindingConflictDetails.init)
        }
    }

    // MARK: Rules' inputs

    /// What the account did with the product today and ever, for its rules.
    static func history(
        accountID: String, product: Product, timeZone: TimeZone, now: Date, _ db: Database
    ) throws -> PurchaseHistory {
        let day = PurchaseDay(containing: now, in: timeZone)
        let mine = Order.filter(Order.Columns.accountID == accountID).filter(
            Order.Columns.productID == product.productID)
        let open = try mine.filter(Order.Columns.status == OrderStatus.open).filter(Order.Columns.expiresAt > now)
            .fetchOne(db)
        let ordersToday =
            try mine
            .filter(Order.Columns.createdAt >= day.start && Order.Columns.createdAt < day.end)
            .filter(
                [OrderStatus.fulfilled, .mismatched].contains(Order.Columns.status)
                    || (Order.Columns.status == OrderStatus.open && Order.Columns.expiresAt > now)
            )
            .fetchCount(db)
        // Paid without an order (lost, or never made): still a purchase of the day.
        let purchases = AppleTransaction.filter(AppleTransaction.Columns.accountID == accountID)
            .filter(AppleTransaction.Columns.catalogProductID == product.productID)
        let unorderedToday = try purchases.filter(Column("order_id") == nil)
            .filter(AppleTransaction.Columns.createdAt >= day.start && AppleTransaction.Columns.createdAt < day.end)
            .fetchCount(db)
        return PurchaseHistory(
            ordersToday: ordersToday + unorderedToday, openOrderID: open?.id,
            hasPurchased: try purchases.fetchCount(db) > 0)
    }

    /// The token the order hands to StoreKit: the one the request names (registered to the
    /// account on first use; the caller has refused another account's), else the account's first.
    private static func appAccountToken(for request: NewOrder, now: Date, _ db: Database) throws -> String {
        if let named = request.appAccountToken?.lowercased() {
            if try AppAccountToken.fetchOne(db, key: named) != nil { return named }
            try AppAccountToken(token: named, accountID: request.accountID, createdAt: now).insert(db)
            return named
        }
        if let first = try AppAccountToken.filter(AppAccountToken.Columns.accountID == request.accountID)
            .order(AppAccountToken.Columns.createdAt, Column.rowID).fetchOne(db)
        {
            return first.token
        }
        let token = AppAccountToken(token: UUID().uuidString.lowercased(), accountID: request.accountID, createdAt: now)
        try token.insert(db)
        return token.token
    }

    /// Marks the account's open orders for the product that ran out of time as expired,
    /// so that the one-open-order rule lets a new one in.
    private static func expireOrders(accountID: String, productID: String, now: Date, _ db: Database) throws {
        let stale = try Order.filter(Order.Columns.accountID == accountID).filter(Order.Columns.productID == productID)
            .filter(Order.Columns.status == OrderStatus.open).filter(Order.Columns.expiresAt <= now).fetchAll(db)
        for var order in stale { try expire(&order, db) }
    }

    private static func expire(_ order: inout Order, _ db: Database) throws {
        order.status = .expired
        order.closedAt = order.expiresAt
        order.closeReason = "expired"
        try order.update(db)
    }
}
