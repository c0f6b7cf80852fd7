import Broker
import Database
import DatabaseSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// `POST /v1/orders`, `GET /v1/orders/{id}`, `POST /v1/orders/{id}/cancel`, `GET /v1/products`.
@Suite struct OrderAPITests {
    static let token = "test-token-0123456789"
    static let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100)),
        Product(
            productID: "future_pack", kind: .consumable, grant: Grant(currency: "coins", amount: 1),
            rules: PurchaseRules(sale: SaleWindow(from: Date().addingTimeInterval(86_400)))),
    ])

    func withIntake(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteDatabase) async throws -> Void)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        var configuration = IntakeConfiguration(apiTokens: [Self.token])
        configuration.stores = LiveIntake.stores
        try await RouterIntake.test(configuration, database: database, catalog: Self.catalog) { client in
            try await body(client, database)
        }
    }

    func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
        token: String? = token, contentType: String = "application/json"
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await RouterIntake.call(client, method, uri, json, token: token, contentType: contentType)
    }

    func code(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["code"] as? String }

    @Test func anOrder_isMade_shown_andCancelled() async throws {
        try await withIntake { client, _ in
            let (status, order) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            #expect(status == .created)
            let id = try #require(order["order_id"] as? String)
            let token = try #require(order["app_account_token"] as? String)
            #expect(UUID(uuidString: token) != nil)
            #expect(order["apple_product_id"] as? String == "com.example.coins100")
            #expect(order["status"] as? String == "open")
            #expect(order["expires_at"] is String)

            let (again, refused) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            #expect(again == .conflict && code(refused) == "order_already_open")

            let (shown, details) = try await call(client, .get, "/v1/orders/\(id)")
            #expect(shown == .ok && details["order_id"] as? String == id)

            let (cancelled, closed) = try await call(
                client, .post, "/v1/orders/\(id)/cancel", #"{"reason": "purchase failed"}"#)
            #expect(cancelled == .ok && closed["status"] as? String == "cancelled")
            let (twice, notOpen) = try await call(client, .post, "/v1/orders/\(id)/cancel")
            #expect(twice == .conflict && code(notOpen) == "order_not_open")
        }
    }

    @Test func products_showWhatTheAccountMayBuyNow() async throws {
        try await withIntake { client, _ in
            let (status, body) = try await call(client, .get, "/v1/products?account_id=p1")
            #expect(status == .ok)
            let products = try #require(body["products"] as? [[String: Any]])
            let coins = try #require(products.first { $0["product_id"] as? String == "com.example.coins100" })
            #expect(coins["available"] as? Bool == true)
            let future = try #require(products.first { $0["product_id"] as? String == "future_pack" })
            #expect(future["available"] as? Bool == false)
            #expect(future["unavailable_reason"] as? String == "sale_not_started")
        }
    }

    @Test func aRuleRefusal_namesTheRule() async throws {
        try await withIntake { client, _ in
            let (status, body) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "p1", "product_id": "future_pack"}"#)
            #expect(status == .conflict)
            #expect(code(body) == "sale_not_started")
        }
    }

    @Test(arguments: [
        (#"{"account_id": "p1", "product_id": "nope"}"#, 422, "unknown_product"),
        (#"{"account_id": "p1"}"#, 400, "missing_field"),
        (#"{"account_id": "p 1", "product_id": "com.example.coins100"}"#, 400, "invalid_account_id"),
        (
            #"{"account_id": "p1", "product_id": "com.example.coins100", "app_account_token": "not-a-uuid"}"#, 400,
            "invalid_app_account_token"
        ),
        (#"{"account_id": "p1", "product_id": "com.example.coins100", "price": 1}"#, 400, "unknown_field"),
        (#"{"account_id": "p1", "product_id": 7}"#, 400, "invalid_product_id"),
        (#"[1]"#, 400, "invalid_json"),
        (#"{"account_id": "#, 400, "invalid_json"),
    ])
    func badOrders_getAClearError_andChangeNothing(json: String, status: Int, expected: String) async throws {
        try await withIntake { client, database in
            let (answer, body) = try await call(client, .post, "/v1/orders", json)
            #expect(answer.code == status)
            #expect(code(body) == expected)
            #expect(try await LedgerRepository(database).account(id: "p1") == nil, "no account created")
            #expect(
                try await OrderRepository(database).offers(accountID: "p1", catalog: Self.catalog, now: Date())
                    .allSatisfy {
                        $0.openOrderID == nil
                    })
        }
    }

    @Test func anotherAccountsToken_isRefused_andChangesNothing() async throws {
        try await withIntake { client, database in
            let (_, mine) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            let token = try #require(mine["app_account_token"] as? String)
            let (status, body) = try await call(
                client, .post, "/v1/orders",
                #"{"account_id": "p2", "product_id": "com.example.coins100", "app_account_token": "\#(token)"}"#)
            #expect(status == .conflict && code(body) == "app_account_token_of_another_account")
            #expect(
                try await OrderRepository(database).offers(accountID: "p2", catalog: Self.catalog, now: Date())
                    .allSatisfy {
                        $0.openOrderID == nil
                    })
            #expect(try await LedgerRepository(database).account(id: "p2") == nil)
        }
    }

    @Test func badCancels_andLookups_getClearErrors() async throws {
        try await withIntake { client, _ in
            let (_, order) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "p1", "product_id": "com.example.coins100"}"#)
            let id = try #require(order["order_id"] as? String)
            #expect(try await call(client, .post, "/v1/orders/unknown-order/cancel").0 == .notFound)
            #expect(try await call(client, .get, "/v1/orders/unknown-order").0 == .notFound)
            let (other, otherBody) = try await call(client, .post, "/v1/orders/\(id)/cancel", #"{"account_id": "p2"}"#)
            #expect(other == .conflict && code(otherBody) == "order_of_another_account")
            let (bad, badBody) = try await call(client, .post, "/v1/orders/\(id)/cancel", #"{"reason": 5}"#)
            #expect(bad == .badRequest && code(badBody) == "invalid_reason")
            let (media, _) = try await call(
                client, .post, "/v1/orders/\(id)/cancel", "reason", contentType: "text/plain")
            #expect(media == .unsupportedMediaType)
            #expect(try await call(client, .get, "/v1/products").0 == .badRequest)
            #expect(try await call(client, .get, "/v1/products?account_id=p1", token: nil).0 == .unauthorized)
            // Still open after all that.
            #expect(try await call(client, .get, "/v1/orders/\(id)").1["status"] as? String == "open")
        }
    }
}
