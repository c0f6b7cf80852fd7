import Database
import Foundation
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
/// A small store over the pipeline's database, SQLite or PostgreSQL: every method is one
/// transaction, run on a thread of the database's own (SQLite's or PostgreSQL's), so no caller blocks a
/// cooperative thread.
public struct OrderRepository: Sendable {
    let database: any SQLDatabase

    public init(_ database: any SQLDatabase) {
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
            return try await database.transaction { db in
                // Orders of one account and product take turns across intakes (PostgreSQL):
                // each sees what the other committed when it counts today's orders.
                try await db.lock(["orders:\(request.accountID):\(product.productID)"])
                // Every refusal comes before the first write: a refused order leaves no trace.
                if let named = request.appAccountToken?.lowercased(),
                    let owner = try await Self.token(named, of: request.accountID, db),
                    owner.accountID != request.accountID
                {
                    return .tokenOfAnotherAccount
                }
                try await Self.expireOrders(accountID: request.accountID, productID: product.productID, now: now, db)
                let history = try await Self.history(
                    accountID: request.accountID, product: product, timeZone: catalog.timeZone, now: now, db)
                if let refusal = product.refusal(at: now, history: history) {
                    return .refused(OrderRefusalReason(code: refusal.code, message: refusal.message))
                }
                try await db.execute(
                    "INSERT INTO accounts (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                    [request.accountID, now])
                let token = try await Self.appAccountToken(for: request, now: now, db)
                let first = product.isFirstPurchase(history)
                let order = Order(
                    id: TimeOrderedID.make(), accountID: request.accountID, productID: product.productID,
                    appleProductID: product.appleProductIDToBuy(firstPurchase: first), appAccountToken: token,
                    firstPurchase: first, status: .open, createdAt: now,
                    expiresAt: now.addingTimeInterval(lifetime.seconds), closedAt: nil, closeReason: nil,
                    receiptID: nil, transactionID: nil, creditedProductID: nil)
                try await db.insert(order, into: "orders")
                return .created(OrderDetails(order, now: now))
            }
        } catch SQLError.constraint {
            // Another process's order for the same account and product committed first.
            let open = try await database.snapshot { db in
                try await db.record(
                    Order.self, "SELECT * FROM orders WHERE account_id = ? AND product_id = ? AND status = ? LIMIT 1",
                    [request.accountID, product.productID, OrderStatus.open.rawValue])
            }
            let refusal = OrderRefusal.orderAlreadyOpen(orderID: open?.id ?? "another order")
            return .refused(OrderRefusalReason(code: refusal.code, message: refusal.message))
        }
    }

    /// Closes an open order: the player cancelled, or the purchase failed. A payment that
    /// arrives later for it is still credited (a lost order never loses a payment).
    public func cancelOrder(id: String, accountID: String?, reason: String?, now: Date) async throws -> CancelOutcome {
        try await database.transaction { db in
            guard var order = try await Self.order(id, db) else { return .notFound }
            if let accountID, accountID != order.accountID { return .otherAccount }
            guard order.status(at: now) == .open else {
                if order.status == .open { try await Self.expire(&order, db) }
                return .notOpen(OrderDetails(order, now: now))
            }
            order.status = .cancelled
            order.closedAt = now
            order.closeReason = reason ?? "cancelled"
            try await db.update(order, in: "orders")
            return .cancelled(OrderDetails(order, now: now))
        }
    }

    public func order(id: String, now: Date) async throws -> OrderDetails? {
        try await database.snapshot { db in try await Self.order(id, db).map { OrderDetails($0, now: now) } }
    }

    /// Every product of the catalog as the account may buy it now: available or why not,
    /// and at which price (the first purchase's when it applies).
    public func offers(accountID: String, catalog: Catalog, now: Date) async throws -> [ProductOffer] {
        try await database.snapshot { db in
            try await catalog.products.asyncMap { product in
                let history = try await Self.history(
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
        try await database.snapshot { db in
            let columns = [
                "claimant_account_id", "credited_account_id", "receipt_id", "transaction_id", "original_transaction_id",
            ]
            let filter = id == nil ? "" : "WHERE " + columns.map { "\($0) = ?" }.joined(separator: " OR ")
            let arguments: SQLArguments = id.map { id in columns.map { _ in id } } ?? []
            return try await db.records(
                BindingConflict.self, "SELECT * FROM binding_conflicts \(filter) ORDER BY id DESC LIMIT ?",
                arguments + [limit]
            ).map(BindingConflictDetails.init)
        }
    }

    // MARK: Rules' inputs

    /// What the account did with the product today and ever, for its rules.
    static func history(
        accountID: String, product: Product, timeZone: TimeZone, now: Date, _ db: any SQLSession
    ) async throws -> PurchaseHistory {
        let day = PurchaseDay(containing: now, in: timeZone)
        let open: String? = try await db.value(
            """
            SELECT id FROM orders WHERE account_id = ? AND product_id = ? AND status = 'open' AND expires_at > ?
            LIMIT 1
            """, [accountID, product.productID, now])
        let ordersToday =
            try await db.value(
                """
                SELECT COUNT(*) FROM orders
                WHERE account_id = ? AND product_id = ? AND created_at >= ? AND created_at < ?
                    AND (status IN ('fulfilled', 'mismatched') OR (status = 'open' AND expires_at > ?))
                """, [accountID, product.productID, day.start, day.end, now], as: Int.self) ?? 0
        // Paid without an order (lost, or never made): still a purchase of the day.
        let unorderedToday =
            try await db.value(
                """
                SELECT COUNT(*) FROM store_transactions
                WHERE account_id = ? AND catalog_product_id = ? AND order_id IS NULL AND created_at >= ? AND created_at < ?
                """, [accountID, product.productID, day.start, day.end], as: Int.self) ?? 0
        let purchased = try await db.row(
            "SELECT 1 AS found FROM store_transactions WHERE account_id = ? AND catalog_product_id = ? LIMIT 1",
            [accountID, product.productID])
        return PurchaseHistory(
            ordersToday: ordersToday + unorderedToday, openOrderID: open, hasPurchased: purchased != nil)
    }

    private static func order(_ id: String, _ db: any SQLSession) async throws -> Order? {
        try await db.record(Order.self, "SELECT * FROM orders WHERE id = ?", [id])
    }

    /// The token as the app of `accountID` (a stored id) holds it: a token is one app's, so
    /// another app's use of the same UUID is neither found nor told.
    private static func token(_ token: String, of accountID: String, _ db: any SQLSession) async throws
        -> AppAccountToken?
    {
        try await db.record(
            AppAccountToken.self, "SELECT * FROM app_account_tokens WHERE app = ? AND token = ?",
            [AppScope.key(ofStored: accountID), token])
    }

    /// The token the order hands to StoreKit: the one the request names (registered to the
    /// account on first use; the caller has refused another account's), else the account's first.
    private static func appAccountToken(for request: NewOrder, now: Date, _ db: any SQLSession) async throws -> String {
        if let named = request.appAccountToken?.lowercased() {
            if try await token(named, of: request.accountID, db) != nil { return named }
            try await db.insert(
                AppAccountToken(request.accountID, token: named, createdAt: now), into: "app_account_tokens")
            return named
        }
        if let first: String = try await db.value(
            "SELECT token FROM app_account_tokens WHERE account_id = ? ORDER BY created_at, token LIMIT 1",
            [request.accountID])
        {
            return first
        }
        let token = AppAccountToken(request.accountID, token: UUID().uuidString.lowercased(), createdAt: now)
        try await db.insert(token, into: "app_account_tokens")
        return token.token
    }

    /// Marks the account's open orders for the product that ran out of time as expired,
    /// so that the one-open-order rule lets a new one in.
    private static func expireOrders(accountID: String, productID: String, now: Date, _ db: any SQLSession) async throws
    {
        let stale = try await db.records(
            Order.self,
            "SELECT * FROM orders WHERE account_id = ? AND product_id = ? AND status = 'open' AND expires_at <= ?",
            [accountID, productID, now])
        for var order in stale { try await expire(&order, db) }
    }

    private static func expire(_ order: inout Order, _ db: any SQLSession) async throws {
        order.status = .expired
        order.closedAt = order.expiresAt
        order.closeReason = "expired"
        try await db.update(order, in: "orders")
    }
}
