import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import StorePlugins
import StubStore
import Xiaomi

/// A stub store served on a loopback port, and a Xiaomi store configured to reach it.
struct XiaomiFixture: Sendable {
    let store: StubAppStore
    let port: Int
    let http: CurlHTTPClient

    var stub: StubXiaomi { store.xiaomi }
    var settings: XiaomiSettings {
        XiaomiSettings(
            appID: StubXiaomi.appID, appSecret: StubXiaomi.appSecret,
            queryURL: "http://127.0.0.1:\(port)/xiaomi/api/biz/service/queryOrder.do")
    }
    var xiaomi: XiaomiStore { XiaomiStore(settings: settings) }

    /// The catalog the tests sell, read as `IAP_CATALOG` is: 100 coins for ¥6.00, a pack
    /// without a CNY price.
    static let catalog = try! Catalog.decode(
        Data(
            #"""
            {"products": [
              {"product_id": "coins_100", "type": "consumable", "grant": {"currency": "coins", "amount": 100},
               "prices": {"CNY": 600, "USD": 99}},
              {"product_id": "unpriced_pack", "type": "consumable", "grant": {"currency": "coins", "amount": 5}}
            ]}
            """#.utf8))

    func verifier() throws -> any ReceiptVerifier {
        try xiaomi.verifier(
            StoreContext(
                httpClient: http, budgets: LocalCallBudgetKeeper(), catalog: Self.catalog,
                logger: .init(label: "xiaomi-tests")))
    }

    /// What the verifier says of `evidence`.
    func verify(_ evidence: StoreEvidence) async throws -> VerificationOutcome {
        try await verifier().verify(
            Submission(id: "r-1", accountID: "player-1", evidence: .store(evidence), submittedAt: Date()))
    }

    static func run(_ body: (XiaomiFixture) async throws -> Void) async throws {
        let store = StubAppStore(configuration: .init(seed: 1))
        let http = try CurlHTTPClient()
        do {
            try await withRunningServer({ makeStubStoreApplication(store: store, port: 0, onServerRunning: $0) }) {
                try await body(XiaomiFixture(store: store, port: $0, http: http))
            }
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }
}
