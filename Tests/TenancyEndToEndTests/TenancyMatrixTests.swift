import Foundation
import GooglePlay
import Pipeline
import PipelineCore
import PipelineTesting
import StorePlugins
import StubStore
import Testing

@testable import EndToEndSupport

/// The tenancy matrix (issue 53): for every way money can move into the pipeline (each
/// registered store's receipt members and notification route, an order's token, a store's
/// job, a console action), an event of one app changes none of the other app's rows, and an
/// event no app's credential proves changes nothing at all. The ways are read from the
/// registered stores: a store added later without a fixture here fails the test.
@Suite struct TenancyMatrixTests {
    typealias T = TenancyPipeline

    /// What one way does: `moved` makes an event of the acting app move money and waits until
    /// it did; `unproven`, when the way has one, sends an event no app's credential proves
    /// and returns the intake's status.
    struct Way: Sendable {
        /// The app whose event it is (``AppScope/key``); the other app's rows must not change.
        var actor: String
        var moved: @Sendable (T) async throws -> Void
        var unproven: (@Sendable (T) async throws -> Int)?
    }

    /// Every way, in the order the test takes them (a refund after its purchase): the stores'
    /// entry points by `<store>/<receipt member>` and `<store>/notifications`, then the rest.
    static let ways: [(name: String, way: Way)] = [
        (
            "apple/receipt_data",
            Way(actor: "racer", moved: TenancyWays.appleReceipt, unproven: TenancyWays.foreignToken)
        ),
        (
            "apple/signed_transaction",
            Way(actor: "racer", moved: TenancyWays.appleSignedTransaction, unproven: TenancyWays.foreignToken)
        ),
        (
            "apple/notifications",
            Way(actor: "racer", moved: TenancyWays.appleRefundNotice, unproven: TenancyWays.appleStrangerNotice)
        ),
        (
            "google/google_play",
            Way(actor: "racer", moved: TenancyWays.googlePurchase, unproven: TenancyWays.foreignToken)
        ),
        (
            "google/notifications",
            Way(actor: "racer", moved: TenancyWays.googleVoidedPush, unproven: TenancyWays.googleStrangerPush)
        ),
        ("huawei/huawei", Way(actor: "", moved: TenancyWays.huaweiPurchase, unproven: TenancyWays.foreignToken)),
        ("store job: confirmations", Way(actor: "", moved: TenancyWays.huaweiConfirmation)),
        (
            "huawei/notifications",
            Way(actor: "", moved: TenancyWays.huaweiRefundNotice, unproven: TenancyWays.huaweiForgedNotice)
        ),
        ("xiaomi/xiaomi", Way(actor: "", moved: TenancyWays.xiaomiOrder, unproven: TenancyWays.foreignToken)),
        (
            "xiaomi/notifications",
            Way(actor: "", moved: TenancyWays.xiaomiNotice, unproven: TenancyWays.xiaomiForgedNotice)
        ),
        ("amazon/amazon", Way(actor: "", moved: TenancyWays.amazonPurchase, unproven: TenancyWays.foreignToken)),
        (
            "amazon/notifications",
            Way(actor: "", moved: TenancyWays.amazonRefundNotice, unproven: TenancyWays.amazonForgedNotice)
        ),
        (
            "stripe/notifications",
            Way(actor: "racer", moved: TenancyWays.stripePayment, unproven: TenancyWays.stripeForgedEvent)
        ),
        ("order token", Way(actor: "racer", moved: TenancyWays.orderToken)),
        ("operator action", Way(actor: "racer", moved: TenancyWays.operatorGrant)),
    ]

    /// Every entry point of every registered store, as the stores declare them.
    static var entryPoints: Set<String> {
        let stores: StoreRegistry
        do {
            stores = try PluginStores.configured(EnvironmentReader(storeVariables))
        } catch {
            Issue.record("the stores' variables do not configure them: \(error)")
            stores = PluginStores.unconfigured
        }
        var points: Set<String> = []
        for store in PluginStores.registered {
            guard let plugin = stores.configured[store.id] else {
                points.insert("\(store.id)/unconfigured")
                continue
            }
            for member in plugin.receiptMembers { points.insert("\(store.id)/\(member)") }
            if plugin.takesNotifications { points.insert("\(store.id)/notifications") }
        }
        return points
    }

    /// Every store's variables, as a stub's settings give them (the stub is never called).
    static var storeVariables: [String: String] {
        StubAppStore(configuration: StubStoreConfiguration(bundleID: PipelineHarness.bundleID))
            .pluginStoreSettings(baseURL: "http://127.0.0.1:1", stripeWebhookSecrets: ["whsec_0123456789abcdef"]).values
            .reduce(into: [:]) { $0.merge($1) { first, _ in first } }
    }

    @Test func everyEntryPointOfEveryRegisteredStoreHasAWay() {
        let storeWays = Set(Self.ways.map(\.name).filter { $0.contains("/") })
        #expect(storeWays == Self.entryPoints, "a store's entry point without a way in the matrix")
    }

    @Test(arguments: TestBackend.allCases) func anAppsEventNeverChangesAnotherAppsRows(_ backend: TestBackend)
        async throws
    {
        try await T.run(backend) { apps in
            // Given each app's player-1 holding coins of its own
            try await TenancyWays.seed(apps)
            for (name, way) in Self.ways {
                let other = way.actor.isEmpty ? "racer" : ""
                await apps.quiet()
                let before = try await apps.rows(ofApp: other)
                #expect(before.count > 5, "\(name): the other app holds nothing to protect")

                // When the acting app's event moves its own money
                try await way.moved(apps)

                // Then the other app's rows are as they were
                await apps.quiet()
                let after = try await apps.rows(ofApp: other)
                #expect(after == before, "\(name): \(Set(after).symmetricDifference(before).sorted())")

                // And an event no app's credential proves is refused and changes nothing at all
                if let unproven = way.unproven {
                    let all = try await apps.allRows()
                    let status = try await unproven(apps)
                    #expect(status == 401 || status == 400, "\(name): answered \(status)")
                    await apps.quiet()
                    let after = try await apps.allRows()
                    #expect(
                        after == all,
                        "\(name): an unproven event changed rows: \(Set(after).symmetricDifference(all).sorted())")
                }
            }
        }
    }
}
