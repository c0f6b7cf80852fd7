import Database
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Observability
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// The backend's API: `POST /v1/receipts`, `GET /v1/receipts/{id}`, `GET /v1/accounts/{id}`,
/// `PUT /v1/accounts/{id}/consumption-consent`. Each acts for the app of the request's token:
/// the account ids it takes are that app's (``AppScope``), and what it shows is the app's
/// alone, in the ids its backend sent; another app's receipt is not found.
struct IntakeRoutes: Sendable {
    let accounts: LedgerRepository
    let consents: ConsumptionRepository
    let receipts: ReceiptRepository
    /// To check that an order a receipt names is its app's.
    let orders: OrderRepository
    let committer: GroupCommitter
    let maxBodySize: Int
    /// The stores configured here, whose members `POST /v1/receipts` takes, by app.
    let stores: @Sendable (AppScope) -> StoreRegistry
    /// The commit's span (IntakeTracing.swift).
    let tracing: IntakeTracing

    func register(on v1: RouterGroup<some AppRequestContext>) {
        v1.post("receipts") { request, context in try await self.submit(request, app: context.app) }
        v1.get("receipts/:id") { _, context in try await self.receipt(context.pathParameter("id"), app: context.app) }
        v1.get("accounts/:id") { _, context in try await self.account(context.pathParameter("id"), app: context.app) }
        v1.put("accounts/:id/consumption-consent") { request, context in
            try await self.consent(context.pathParameter("id"), request, app: context.app)
        }
    }

    private func submit(_ request: Request, app: AppScope) async throws -> Response {
        let body = try await request.jsonBody(maxSize: maxBodySize)
        let parsed = try ReceiptRequest(json: body.readableBytesView, stores: stores(app))
        let key = try idempotencyKey(request)
        try Self.checkFits(parsed.accountID, app: app)
        let outcome: AcceptOutcome
        do {
            // The account is the app's: duplicates and idempotency keys are then per app too.
            var receipt = parsed.newReceipt(id: TimeOrderedID.make(), idempotencyKey: key)
            receipt.accountID = app.stored(receipt.accountID)
            receipt.orderID = try await ownOrder(receipt.orderID, app: app)
            outcome = try await tracing.commit(receipt) { try await committer.accept($0) }
        } catch {
            throw APIError.unavailable(error)
        }
        switch outcome {
        case .created(let summary):
            PipelineMetrics.received(kind: parsed.kind.rawValue).increment()
            return Response.json(written: summary, status: .accepted)
        case .duplicate(let summary):
            return Response.json(written: summary, status: .ok)
        case .idempotencyConflict(let existing):
            throw APIError(
                .unprocessableContent, code: "idempotency_key_reused",
                message: "Idempotency-Key was used for a different request (receipt \(existing))",
                field: "Idempotency-Key")
        case .invalid(let reason):
            throw APIError.invalid("invalid_receipt", reason)
        }
    }

    /// The `Idempotency-Key` header (IETF httpapi-idempotency-key-header): 1-255 visible ASCII.
    private func idempotencyKey(_ request: Request) throws(APIError) -> String? {
        guard let value = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        let key =
            value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
            ? String(value.dropFirst().dropLast()) : value
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.invalid(
                "invalid_idempotency_key", "Idempotency-Key must be 1-255 visible ASCII characters",
                field: "Idempotency-Key")
        }
        return key
    }

    /// `orderID` when its order is `app`'s or unknown (settlement then ignores it), nil when
    /// it is another app's: a receipt never pays another app's order, as if there were none.
    /// Only an intake serving several apps reads the order.
    private func ownOrder(_ orderID: String?, app: AppScope) async throws -> String? {
        guard app != .single, let orderID, let order = try await orders.order(id: orderID, now: Date()) else {
            return orderID
        }
        return app.shown(order.accountID) == nil ? nil : orderID
    }

    private func receipt(_ id: String, app: AppScope) async throws -> Response {
        guard JSONFields.isIdentifier(id), var details = try await receipts.receipt(id: id),
            let account = app.shown(details.accountID)
        else {
            throw APIError.notFound
        }
        details.accountID = account
        return try Response.json(details, status: .ok)
    }

    private func account(_ id: String, app: AppScope) async throws -> Response {
        try Self.checkAccount(id)
        guard var details = try await accounts.account(id: app.stored(id)) else { throw APIError.notFound }
        details.accountID = id
        details.consumptionConsent?.accountID = id
        return try Response.json(details, status: .ok)
    }

    /// The player's consent to share consumption data with Apple when they ask it for a
    /// refund: `{"consented": true}`, or `false` to withdraw it. Without it, Apple's
    /// consumption requests about the player's purchases are not answered. An account
    /// unknown here is `404 not_found`, as `GET /v1/accounts/{id}` answers it.
    private func consent(_ id: String, _ request: Request, app: AppScope) async throws -> Response {
        try Self.checkAccount(id)
        let body = try await request.jsonBody(maxSize: maxBodySize)
        let object = try JSONFields.object(body.readableBytesView, allowed: ["consented"])
        guard let consented = try JSONFields.bool(object, "consented") else {
            throw APIError.invalid("missing_field", "consented is required (true or false)", field: "consented")
        }
        let recorded: ConsumptionConsent?
        let stored = app.stored(id)
        do {
            // Only for an account we know (it submitted a receipt, ordered, or was credited):
            // a typo in the id must not record a consent no purchase will ever ask for.
            recorded =
                try await accounts.account(id: stored, ledgerLimit: 0) == nil
                ? nil : try await consents.recordConsent(accountID: stored, consented: consented, now: Date())
        } catch {
            throw APIError.unavailable(error)
        }
        guard var recorded else { throw APIError.notFound }
        recorded.accountID = id
        return try Response.json(recorded, status: .ok)
    }

    /// Refuses an account id that obeys the rule but not with the app's prefix (`racer/…`)
    /// in front: the database keeps ids of at most ``AccountID/maxStoredLength``.
    static func checkFits(_ id: String, app: AppScope) throws(APIError) {
        guard AccountID.isValid(id, appKey: app.key) else {
            throw APIError.invalid(
                "invalid_account_id",
                "account_id must be 1-\(AccountID.maxStoredLength - app.stored("").utf8.count) characters for this app",
                field: "account_id")
        }
    }

    private static func checkAccount(_ id: String) throws(APIError) {
        guard JSONFields.isIdentifier(id) else {
            throw APIError.invalid(
                "invalid_account_id", "account_id must be 1-128 of A-Z a-z 0-9 . _ : -", field: "account_id")
        }
    }
}
