import AppStore
import Database
import Foundation
import GooglePlay
import Pipeline
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// The hint matrix (issue 53): for each store that pushes notifications, every kind of notice
/// it sends, sent unsigned, forged, or signed but contradicted by what is read back from the
/// store, moves no money: the credited purchase keeps its coins and its entitlement, and no
/// refund is told. A store that pushes notifications without a row here fails the test.
@Suite struct HintMatrixTests {
    /// The stores with a row here.
    static let stores = ["apple", "google", "huawei", "stripe", "xiaomi", "amazon"]

    /// Each notifying store's row: what it credits first, then every hint it must ignore.
    static func row(_ store: String, _ pipeline: PipelineHarness) async throws {
        switch store {
        case "apple": try await apple(pipeline)
        case "google": try await google(pipeline)
        case "huawei": try await huawei(pipeline)
        case "stripe": try await stripe(pipeline)
        case "xiaomi": try await xiaomi(pipeline)
        case "amazon": try await amazon(pipeline)
        default: Issue.record("no hint row for \(store)")
        }
    }

    /// One hint: its name, the answers it may get, and how it is sent.
    struct Hint {
        var name: String
        var statuses: Set<Int>
        var send: () async throws -> Int

        init(_ name: String, _ statuses: Set<Int>, _ send: @escaping () async throws -> Int) {
            self.name = name
            self.statuses = statuses
            self.send = send
        }
    }

    @Test func everyStoreThatPushesNotificationsHasARow() throws {
        let stores = try PluginStores.configured(EnvironmentReader(TenancyMatrixTests.storeVariables))
        var notifying: Set<String> = []
        for store in PluginStores.registered {
            let plugin = try #require(stores.configured[store.id], "\(store.id) is not configured")
            if plugin.takesNotifications { notifying.insert(store.id) }
        }
        #expect(Set(Self.stores) == notifying)
    }

    @Test(arguments: TestBackend.allCases, ["apple", "google", "huawei", "stripe", "xiaomi", "amazon"])
    func noHintMovesMoney(_ backend: TestBackend, _ store: String) async throws {
        try await PipelineHarness.run(backend, pluginStores: true) { pipeline in try await Self.row(store, pipeline) }
    }

    // MARK: - What may not move

    /// The books of `account`: its balance, entitlements and ledger, as text.
    static func holdings(_ pipeline: PipelineHarness, _ account: String) async throws -> String {
        let details = try #require(try await LedgerRepository(pipeline.database).account(id: account))
        return "\(details.balances) \(details.entitlements.map { "\($0.name) \(String(describing: $0.expiresAt))" }) "
            + "\(details.ledger.map { "\($0.kind) \($0.amount)" })"
    }

    /// Sends each hint of `hints`, each answered one of `statuses`; after all of them (and all
    /// they led to) `account`'s books are as they were and no refund was told.
    static func ignored(
        _ pipeline: PipelineHarness, _ account: String,
        _ hints: [Hint]
    ) async throws {
        await TenancyPipeline.quiet(pipeline.database)
        let before = try await holdings(pipeline, account)
        for hint in hints {
            let status = try await hint.send()
            #expect(hint.statuses.contains(status), "\(hint.name): answered \(status)")
            await TenancyPipeline.quiet(pipeline.database)
            #expect(try await holdings(pipeline, account) == before, "\(hint.name) moved money")
        }
        let told = pipeline.receiver.received.filter { $0.bodyString.contains("\"purchase.refunded\"") }
        #expect(told.isEmpty, "\(told.map(\.bodyString))")
    }

    // MARK: - Apple: signed data, no read-back

    /// Apple signs every notice (JWS under its root): one unsigned (its signature replaced) or
    /// forged (under another root) is refused, for each kind. Apple's signed word is not read
    /// back, so there is nothing to contradict it.
    static func apple(_ pipeline: PipelineHarness) async throws {
        let storeKit = pipeline.stub.storeKit
        let signed = storeKit.signTransaction(
            StubTransaction(transactionID: "hint-sk2", productID: "com.example.coins100"))
        let (_, posted) = try await pipeline.post(
            "/v1/receipts", ["account_id": "hint-apple", "signed_transaction": signed])
        let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
        #expect(final["status"] as? String == "credited", "\(final)")

        let stranger = StubAppStore(configuration: StubStoreConfiguration(bundleID: PipelineHarness.bundleID))
        var refunded = StubTransaction(transactionID: "hint-sk2", productID: "com.example.coins100")
        refunded.revocationDate = Date()
        let url = "http://127.0.0.1:\(pipeline.intakePort)/v1/apple/notifications"
        var hints: [Hint] = []
        for type in [ResponseBodyV2DecodedPayload.NotificationType.refund, .revoke, .consumptionRequest, .expired] {
            let genuine = storeKit.signNotification(type: type, transaction: refunded)
            var parts = genuine.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let unsigned = parts.joined(separator: ".")
            let forged = stranger.storeKit.signNotification(type: type, transaction: refunded)
            hints.append(Hint("apple \(type.rawValue) unsigned", [400]) { try await storeKit.send(unsigned, to: url) })
            hints.append(Hint("apple \(type.rawValue) forged", [400]) { try await storeKit.send(forged, to: url) })
        }
        try await ignored(pipeline, "hint-apple", hints)
    }

    // MARK: - Google: pushes signed by Pub/Sub, read back from Google

    /// Google's pushes carry Pub/Sub's OIDC token: one without it or for another audience is
    /// refused; one with it whose purchase Google reads back as still bought (not voided, not
    /// cancelled) moves nothing.
    static func google(_ pipeline: PipelineHarness) async throws {
        let play = pipeline.stub.googlePlay
        play.register(
            token: "hint-play",
            ProductPurchaseV2(
                productLineItem: [.init(productId: "com.example.coins100", productOfferDetails: .init(quantity: 1))],
                purchaseState: "PURCHASED", orderId: "GPA.7777-0000-1111-00001"))
        let (_, posted) = try await pipeline.submitGooglePlay(
            account: "hint-google", token: "hint-play", product: "com.example.coins100")
        let final = try await pipeline.finalStatus(try #require(posted["receipt_id"] as? String))
        #expect(final["status"] as? String == "credited", "\(final)")

        let notices: [(String, [String: Any])] = [
            (
                "voided",
                PipelineHarness.developerNotification(
                    "voidedPurchaseNotification",
                    [
                        "purchaseToken": "hint-play", "orderId": "GPA.7777-0000-1111-00001", "productType": 2,
                        "refundType": 1,
                    ])
            ),
            (
                "one-time canceled",
                PipelineHarness.developerNotification(
                    "oneTimeProductNotification",
                    [
                        "version": "1.0", "notificationType": 2, "purchaseToken": "hint-play",
                        "sku": "com.example.coins100",
                    ])
            ),
        ]
        var hints: [Hint] = []
        for (index, (name, notice)) in notices.enumerated() {
            let forged = "Bearer " + play.pushToken(audience: "https://elsewhere.example.com/push")
            hints.append(
                Hint("google \(name) unsigned", [401]) {
                    try await pipeline.pushGoogle(notice, messageID: "h\(index)u", authorization: .some(nil)).0
                })
            hints.append(
                Hint("google \(name) forged", [401]) {
                    try await pipeline.pushGoogle(notice, messageID: "h\(index)f", authorization: .some(forged)).0
                })
            hints.append(
                Hint("google \(name) contradicted", [200]) {
                    try await pipeline.pushGoogle(notice, messageID: "h\(index)c").0
                })
        }
        try await ignored(pipeline, "hint-google", hints)
    }
}
