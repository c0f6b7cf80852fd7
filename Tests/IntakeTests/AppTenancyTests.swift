import Apps
import Broker
import Database
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

/// Apps as tenants at the intake (issue 30): the token decides the app, an app's accounts
/// are its own (`<app>/<account>` in the database for every app but the first), and another
/// app's account, receipt or order is not found. On both backends.
@Suite struct AppTenancyTests {
    static let puzzle = "puzzle-backend-token-0001"
    static let racer = "racer-backend-token-00001"
    static let receipt = Data("one receipt, posted by two games".utf8).base64EncodedString()
    static let catalog = Catalog(products: [
        Product(productID: "com.example.coins100", kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// An apps file of two apps: `puzzle` (the first, the default app) and `racer`.
    static let appsFile = """
        apps:
          - id: puzzle
            api_tokens: [\(puzzle)]
          - id: racer
            api_tokens: [\(racer)]
        """

    /// The intake's settings as `iap intake` reads them, with `IAP_APPS` naming `text`.
    static func configuration(_ text: String = appsFile, _ extra: [String: String] = [:]) throws
        -> IntakeConfiguration
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("apps.yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try IntakeConfiguration(
            environment: EnvironmentReader(extra), apps: AppsFile.load(path: file, schema: AppsFile.Schema(stores: [])))
    }

    func withIntake(
        _ backend: TestBackend,
        _ body: @escaping @Sendable (any TestClientProtocol, any SQLDatabase) async throws -> Void
    ) async throws {
        var configuration = try Self.configuration()
        configuration.stores = LiveIntake.stores
        try await withTestDatabase(backend) { database in
            try await RouterIntake.test(configuration, database: database, catalog: Self.catalog) { client in
                try await body(client, database)
            }
        }
    }

    func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
        token: String
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await RouterIntake.call(client, method, uri, json, token: token)
    }

    func code(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["code"] as? String }

    func grant(_ coins: Int, to account: String, _ database: any SQLDatabase) async throws {
        _ = try await AdjustmentRepository(database).apply(
            .init(
                accountID: account, change: .currency("coins", amount: coins), reason: "test",
                operatorName: "test", idempotencyKey: "grant-\(account)"),
            catalog: Self.catalog, now: Date())
    }

    @Test(arguments: TestBackend.allCases) func theSameAccountInTwoAppsIsTwoAccounts(_ backend: TestBackend)
        async throws
    {
        try await withIntake(backend) { client, database in
            let body = #"{"account_id": "player-1", "receipt_data": "\#(Self.receipt)"}"#
            let (puzzleStatus, puzzleReceipt) = try await call(client, .post, "/v1/receipts", body, token: Self.puzzle)
            let (racerStatus, racerReceipt) = try await call(client, .post, "/v1/receipts", body, token: Self.racer)
            // The same receipt for the same id in another game is no duplicate: a second account's.
            #expect(puzzleStatus == .accepted && racerStatus == .accepted)
            let puzzleID = try #require(puzzleReceipt["receipt_id"] as? String)
            let racerID = try #require(racerReceipt["receipt_id"] as? String)
            #expect(puzzleID != racerID)
            let receipts = ReceiptRepository(database)
            #expect(try await receipts.receipt(id: puzzleID)?.accountID == "player-1")
            #expect(try await receipts.receipt(id: racerID)?.accountID == "racer/player-1")

            // Each app reads its own receipt in the id it sent, and not the other's.
            for (id, owner, other) in [(puzzleID, Self.puzzle, Self.racer), (racerID, Self.racer, Self.puzzle)] {
                let (shown, details) = try await call(client, .get, "/v1/receipts/\(id)", token: owner)
                #expect(shown == .ok && details["account_id"] as? String == "player-1")
                let (hidden, refused) = try await call(client, .get, "/v1/receipts/\(id)", token: other)
                #expect(hidden == .notFound && code(refused) == "not_found")
            }

            try await grant(100, to: "player-1", database)
            try await grant(7, to: "racer/player-1", database)
            for (token, coins) in [(Self.puzzle, 100), (Self.racer, 7)] {
                let (status, account) = try await call(client, .get, "/v1/accounts/player-1", token: token)
                #expect(status == .ok && account["account_id"] as? String == "player-1")
                #expect((account["balances"] as? [String: Any])?["coins"] as? Int == coins)
            }
            // An account only racer has is not found by puzzle, as one that does not exist.
            let (posted, _) = try await call(
                client, .post, "/v1/receipts", body.replacingOccurrences(of: "player-1", with: "only-racer"),
                token: Self.racer)
            #expect(posted == .accepted)
            let (missing, absent) = try await call(client, .get, "/v1/accounts/only-racer", token: Self.puzzle)
            let (unknown, none) = try await call(client, .get, "/v1/accounts/nobody", token: Self.puzzle)
            #expect(missing == .notFound && unknown == .notFound && code(absent) == code(none))
            let consent = #"{"consented": true}"#
            let (refused, _) = try await call(
                client, .put, "/v1/accounts/only-racer/consumption-consent", consent, token: Self.puzzle)
            let (recorded, shown) = try await call(
                client, .put, "/v1/accounts/only-racer/consumption-consent", consent, token: Self.racer)
            #expect(refused == .notFound && recorded == .ok && shown["account_id"] as? String == "only-racer")
        }
    }

    @Test(arguments: TestBackend.allCases) func anOrderIsItsAppsAlone(_ backend: TestBackend) async throws {
        try await withIntake(backend) { client, database in
            let (created, order) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "player-1", "product_id": "com.example.coins100"}"#,
                token: Self.racer)
            #expect(created == .created && order["account_id"] as? String == "player-1")
            let id = try #require(order["order_id"] as? String)
            #expect(try await OrderRepository(database).order(id: id, now: Date())?.accountID == "racer/player-1")

            // The same player of the puzzle game may order too: its account has no open order.
            let (again, _) = try await call(
                client, .post, "/v1/orders", #"{"account_id": "player-1", "product_id": "com.example.coins100"}"#,
                token: Self.puzzle)
            #expect(again == .created)

            let (hidden, _) = try await call(client, .get, "/v1/orders/\(id)", token: Self.puzzle)
            let (kept, _) = try await call(client, .post, "/v1/orders/\(id)/cancel", token: Self.puzzle)
            #expect(hidden == .notFound && kept == .notFound)
            let (shown, details) = try await call(client, .get, "/v1/orders/\(id)", token: Self.racer)
            #expect(shown == .ok && details["status"] as? String == "open")
            #expect(details["account_id"] as? String == "player-1")

            // A receipt of puzzle naming racer's order does not pay it: as an order that does not exist.
            let (posted, receipt) = try await call(
                client, .post, "/v1/receipts",
                #"{"account_id": "player-1", "receipt_data": "\#(Self.receipt)", "order_id": "\#(id)"}"#,
                token: Self.puzzle)
            #expect(posted == .accepted)
            let receiptID = try #require(receipt["receipt_id"] as? String)
            #expect(try await ReceiptRepository(database).receipt(id: receiptID)?.orderID == nil)

            let (products, offers) = try await call(
                client, .get, "/v1/products?account_id=player-1", token: Self.racer)
            #expect(products == .ok && offers["account_id"] as? String == "player-1")
            let (cancelled, closed) = try await call(
                client, .post, "/v1/orders/\(id)/cancel", #"{"account_id": "player-1"}"#, token: Self.racer)
            #expect(cancelled == .ok && closed["status"] as? String == "cancelled")
            #expect(closed["account_id"] as? String == "player-1")
        }
    }

    @Test func anIdempotencyKeyIsEachAppsOwn() async throws {
        try await withIntake(.sqlite) { client, _ in
            func post(_ data: String, _ token: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let body = #"{"account_id": "player-1", "receipt_data": "\#(data)"}"#
                return try await client.execute(
                    uri: "/v1/receipts", method: .post,
                    headers: [
                        .authorization: "Bearer \(token)", .contentType: "application/json",
                        HTTPField.Name("Idempotency-Key")!: "checkout-1",
                    ],
                    body: ByteBuffer(string: body)
                ) { response in
                    (
                        response.status,
                        (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
                    )
                }
            }
            let other = Data("another receipt".utf8).base64EncodedString()
            let (first, _) = try await post(Self.receipt, Self.puzzle)
            // Another app's key is no reuse: racer's request with it is its own receipt.
            let (second, _) = try await post(other, Self.racer)
            // Within one app the key still guards: puzzle's other body under it is refused.
            let (reused, refused) = try await post(other, Self.puzzle)
            #expect(first == .accepted && second == .accepted)
            #expect(reused == .unprocessableContent && code(refused) == "idempotency_key_reused")
        }
    }

    @Test func theTokensFileIsTheFirstAppsAndNeverTakesAnotherAppsToken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("tokens")
        try Self.racer.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try Self.configuration(Self.appsFile, ["IAP_API_TOKENS_FILE": file])
        } throws: { "\($0)".contains("apps puzzle and racer share an API token") }

        let rotated = "puzzle-rotated-token-0002"
        try rotated.write(toFile: file, atomically: true, encoding: .utf8)
        let tokens = try APITokens(
            tokens: [Self.puzzle], file: file, app: AppScope(app: "puzzle", isDefault: true),
            others: [AppScope(app: "racer", isDefault: false): [Self.racer]], recheckInterval: .zero)
        #expect(tokens.match(rotated)?.app.id == "puzzle")
        // A reload that would give racer's token to puzzle is refused; the tokens read last stay.
        try "\(rotated)\n\(Self.racer)".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(tokens.match(rotated)?.app.id == "puzzle")
        #expect(tokens.match(Self.racer)?.app.id == "racer")
    }

    @Test func anAccountIdWithASlashIsStillRefused() async throws {
        try await withIntake(.sqlite) { client, database in
            let (status, body) = try await call(
                client, .post, "/v1/receipts", #"{"account_id": "racer/player-1", "receipt_data": "\#(Self.receipt)"}"#,
                token: Self.puzzle)
            #expect(status == .badRequest && code(body) == "invalid_account_id")
            #expect((body["error"] as? [String: Any])?["field"] as? String == "account_id")
            let (read, _) = try await call(client, .get, "/v1/accounts/racer%2Fplayer-1", token: Self.puzzle)
            #expect(read == .badRequest)
            #expect(try await ReceiptRepository(database).receiptStatusCounts().values.reduce(0, +) == 0)
        }
    }

    @Test func badAppTokensStopTheIntakeNamingTheApp() throws {
        let short = Self.appsFile.replacingOccurrences(of: Self.racer, with: "short-token")
        #expect {
            try Self.configuration(short)
        } throws: { error in
            "\(error)".contains("app racer: api_tokens") && !"\(error)".contains("short-token")
        }
        // IAP_API_TOKENS are the first app's: one of racer's there is two apps' token.
        #expect {
            try Self.configuration(Self.appsFile, ["IAP_API_TOKENS": Self.racer])
        } throws: { error in
            "\(error)".contains("apps puzzle and racer share an API token") && !"\(error)".contains(Self.racer)
        }
        // The first app's own token there is the same app's: no conflict, one app.
        let configuration = try Self.configuration(Self.appsFile, ["IAP_API_TOKENS": Self.puzzle])
        #expect(configuration.tokens.match(Self.puzzle)?.app == AppScope(app: "puzzle", isDefault: true))
        #expect(configuration.tokens.match(Self.racer)?.app == AppScope(app: "racer", isDefault: false))
        #expect(configuration.tokens.match("no-such-token-00000000") == nil)
    }
}
