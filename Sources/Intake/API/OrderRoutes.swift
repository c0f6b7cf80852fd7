import Database
import Foundation
import Hummingbird
import NIOCore
import PipelineCore
import Repositories
import SettlementWriter

/// Orders before purchase and what an account may buy:
/// `GET /v1/products?account_id=`, `POST /v1/orders`, `GET /v1/orders/{id}`,
/// `POST /v1/orders/{id}/cancel`. Each acts for the app of the request's token, in its
/// account ids (``AppScope``); another app's order is not found.
struct OrderRoutes: Sendable {
    let orders: OrderRepository
    /// What each app sells: an account's orders and offers are priced by its app's catalog.
    let catalogs: AppCatalogs
    /// How long an order stays open for its payment.
    let orderLifetime: Duration
    let maxBodySize: Int

    func register(on group: RouterGroup<some AppRequestContext>) {
        group.get("products") { request, context in try await self.products(request, app: context.app) }
        group.post("orders") { request, context in try await self.create(request, app: context.app) }
        group.get("orders/:id") { _, context in try await self.order(context.pathParameter("id"), app: context.app) }
        group.post("orders/:id/cancel") { request, context in
            try await self.cancel(context.pathParameter("id"), request, app: context.app)
        }
    }

    private func products(_ request: Request, app: AppScope) async throws -> Response {
        guard let accountID = request.uri.queryParameters.get("account_id") else {
            throw APIError.invalid("missing_field", "account_id is required (?account_id=)", field: "account_id")
        }
        guard JSONFields.isIdentifier(accountID) else {
            throw APIError.invalid(
                "invalid_account_id", "account_id must be 1-128 of A-Z a-z 0-9 . _ : -", field: "account_id")
        }
        let offers = try await stored {
            try await orders.offers(
                accountID: app.stored(accountID), catalog: catalogs.catalog(forAccount: app.stored(accountID)),
                now: Date())
        }
        return try Response.json(ProductList(accountID: accountID, products: offers), status: .ok)
    }

    private func create(_ request: Request, app: AppScope) async throws -> Response {
        let body = try await request.jsonBody(maxSize: maxBodySize)
        let parsed = try OrderRequest(json: body.readableBytesView)
        try IntakeRoutes.checkFits(parsed.order.accountID, app: app)
        var order = parsed.order
        order.accountID = app.stored(order.accountID)
        let outcome = try await stored {
            try await orders.createOrder(
                order, catalog: catalogs.catalog(forAccount: order.accountID), lifetime: orderLifetime, now: Date())
        }
        switch outcome {
        case .created(var created):
            created.accountID = parsed.order.accountID
            return try Response.json(created, status: .created)
        case .unknownProduct:
            throw APIError(
                .unprocessableContent, code: "unknown_product",
                message: "the catalog does not sell \(parsed.order.productID)",
                field: "product_id")
        case .refused(let reason):
            // 409: the request is fine; the account's state (or the clock) refuses it now.
            throw APIError(.conflict, code: reason.code, message: reason.message, field: "product_id")
        case .tokenOfAnotherAccount:
            throw APIError(
                .conflict, code: "app_account_token_of_another_account",
                message: "app_account_token belongs to another account", field: "app_account_token")
        }
    }

    private func order(_ id: String, app: AppScope) async throws -> Response {
        guard let order = try await appsOrder(id, app: app) else { throw APIError.notFound }
        return try Response.json(order, status: .ok)
    }

    /// The order `id` as `app`'s backend sees it, or nil when there is none or it is another app's.
    private func appsOrder(_ id: String, app: AppScope) async throws -> OrderDetails? {
        guard JSONFields.isIdentifier(id),
            var order = try await stored({ try await orders.order(id: id, now: Date()) }),
            let account = app.shown(order.accountID)
        else { return nil }
        order.accountID = account
        return order
    }

    private func cancel(_ id: String, _ request: Request, app: AppScope) async throws -> Response {
        guard JSONFields.isIdentifier(id) else { throw APIError.notFound }
        let body = try await request.optionalJSONBody(maxSize: maxBodySize)
        let parsed = try CancelRequest(json: body.readableBytesView)
        // Another app's order is not found, and stays open: its account never changes, so
        // reading it first is as good as checking in the cancel's transaction.
        if app != .single, try await appsOrder(id, app: app) == nil { throw APIError.notFound }
        let outcome = try await stored {
            try await orders.cancelOrder(
                id: id, accountID: parsed.accountID.map(app.stored), reason: parsed.reason, now: Date())
        }
        switch outcome {
        case .cancelled(var order):
            order.accountID = app.shown(order.accountID) ?? order.accountID
            return try Response.json(order, status: .ok)
        case .notFound:
            throw APIError.notFound
        case .notOpen(let order):
            throw APIError(
                .conflict, code: "order_not_open", message: "the order is \(order.status.rawValue), not open")
        case .otherAccount:
            throw APIError(
                .conflict, code: "order_of_another_account", message: "the order belongs to another account",
                field: "account_id")
        }
    }

    /// A database that cannot take the work answers 503: the backend may retry.
    private func stored<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch {
            throw APIError.unavailable(error)
        }
    }
}

/// `GET /v1/products` answer.
struct ProductList: Encodable {
    /// As the backend sent it.
    var accountID: String
    var products: [ProductOffer]

    enum CodingKeys: String, CodingKey {
        case accountID = "account_id"
        case products
    }
}
