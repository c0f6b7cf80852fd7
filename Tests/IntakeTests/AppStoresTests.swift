import Database
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StorePlugins
import Testing

@testable import Intake

/// Each app's own stores and catalog at the intake (issue 30): a token posts the members of
/// its app's stores, a store's notification is taken when any app's credential for it holds,
/// and an app's orders are priced by its own catalog.
@Suite struct AppStoresTests {
    /// A store whose notifications carry a key (as a push token or a webhook secret would),
    /// and whose receipts are a `keyed` member.
    struct KeyedStore: StorePlugin {
        static let id = "keyed"
        static let appsFileSection = AppsFileSection("keyed", members: [:])
        static let variablePrefixes = ["IAP_KEYED_"]
        let key: String

        init(key: String) { self.key = key }
        init?(environment: EnvironmentReader) throws(SettingError) { nil }

        var receiptMember: String? { "keyed" }

        func receiptEvidence(_ value: Any) throws(StoreInputError) -> StoreEvidence {
            guard let token = value as? String, !token.isEmpty else {
                throw .invalid("invalid_keyed", "keyed must be a token", member: "keyed")
            }
            return StoreEvidence(store: Self.id, kind: "purchase", payload: StoreInput.canonicalJSON(["token": token]))
        }

        var takesNotifications: Bool { true }

        func notification(_ request: InboundRequest) async throws(StoreInputError) -> InboundNotification {
            guard request.headers["x-key"] == key else { throw .unauthorized("the key is not \(key.prefix(6))...") }
            var read = try await StoreNotificationRouteTests.EchoStore().notification(request)
            read.evidence.store = Self.id
            return read
        }

        func verifier(_ context: StoreContext) throws -> any ReceiptVerifier { throw CancellationError() }
    }

    static let gems = Catalog(products: [
        Product(productID: "com.example.gems10", kind: .consumable, grant: Grant(currency: "gems", amount: 10))
    ])

    /// Puzzle (the default app) has Apple and Google only; racer also has `keyed`, and sells gems.
    func withIntake(
        _ backend: TestBackend, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = try AppTenancyTests.configuration()
        configuration.stores = LiveIntake.stores
        configuration.appStores = [
            "racer": StoreRegistry(
                known: [KeyedStore.self],
                configured: LiveIntake.stores.configured.values + [KeyedStore(key: "racer-key")])
        ]
        configuration.appCatalogs = ["racer": Self.gems]
        try await withTestDatabase(backend) { database in
            try await RouterIntake.test(configuration, database: database, catalog: AppTenancyTests.catalog) {
                try await body($0)
            }
        }
    }

    func notify(_ client: any TestClientProtocol, key: String, id: String) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/v1/keyed/notifications", method: .post,
            headers: [.contentType: "application/json", HTTPField.Name("x-key")!: key], body: ByteBuffer(string: id)
        ) { $0.status }
    }

    @Test(arguments: TestBackend.allCases) func anAppsOwnStoreTakesItsReceiptsAndNotifications(_ backend: TestBackend)
        async throws
    {
        try await withIntake(backend) { client in
            let receipt = #"{"account_id": "player-1", "keyed": "purchase-token-1"}"#
            let (racer, _) = try await RouterIntake.call(
                client, .post, "/v1/receipts", receipt, token: AppTenancyTests.racer)
            #expect(racer == .accepted)
            // The default app has no such store: its token cannot post that member
            let (puzzle, refusal) = try await RouterIntake.call(
                client, .post, "/v1/receipts", receipt, token: AppTenancyTests.puzzle)
            #expect(puzzle == .badRequest, "\(refusal)")

            // The store's route exists though the default app lacks it; racer's key holds
            #expect(try await notify(client, key: "racer-key", id: "evt-1") == .ok)
            #expect(try await notify(client, key: "someone-else", id: "evt-2") == .unauthorized)
        }
    }

    @Test(arguments: TestBackend.allCases) func anAppsOrdersArePricedByItsOwnCatalog(_ backend: TestBackend)
        async throws
    {
        try await withIntake(backend) { client in
            let gems = #"{"account_id": "player-1", "product_id": "com.example.gems10"}"#
            let (racer, order) = try await RouterIntake.call(
                client, .post, "/v1/orders", gems, token: AppTenancyTests.racer)
            #expect(racer == .created, "\(order)")
            let (puzzle, refusal) = try await RouterIntake.call(
                client, .post, "/v1/orders", gems, token: AppTenancyTests.puzzle)
            #expect(puzzle == .unprocessableContent, "\(refusal)")
            let coins = #"{"account_id": "player-2", "product_id": "com.example.coins100"}"#
            let (racerCoins, _) = try await RouterIntake.call(
                client, .post, "/v1/orders", coins, token: AppTenancyTests.racer)
            #expect(racerCoins == .unprocessableContent)
        }
    }

    @Test func aCredentialNoAppHasIsRefusedWithTheDefaultAppsReason() async throws {
        let puzzle = KeyedStore(key: "puzzle-key")
        let racer = KeyedStore(key: "racer-key")
        let request = InboundRequest(headers: ["x-key": "racer-key"], body: Array("evt-3".utf8))
        let candidates: [(app: String, plugin: any StorePlugin)] = [("", puzzle), ("racer", racer)]
        let accepted = try await NotificationRoutes.firstAccepting(candidates, request)
        #expect(accepted.notification.messageID == "evt-3")
        // The notification is the app's whose credential held, never the default app's for want of one.
        #expect(accepted.app == "racer")
        let stranger = InboundRequest(headers: ["x-key": "nobody"], body: Array("evt-4".utf8))
        await #expect(throws: StoreInputError.unauthorized("the key is not puzzle...")) {
            try await NotificationRoutes.firstAccepting(candidates, stranger)
        }
    }
}
