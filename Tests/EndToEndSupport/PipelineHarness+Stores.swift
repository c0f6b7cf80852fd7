import Amazon
import Database
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import Repositories
import Settlement
import SettlementWriter
import StubStore
import Testing

/// The plug-in stores (Huawei AppGallery, Stripe) as the harness runs them: configured from
/// their environment variables as `iap up` would be, pointing at the stub, which serves
/// Huawei under `/huawei` and Stripe under `/stripe`.
extension PipelineHarness {
    /// The endpoint's signing secret the intake checks `Stripe-Signature` against.
    static let stripeWebhookSecret = "whsec_e2e_0123456789abcdef"
    /// The secret being rotated out: Stripe still signs with it too for a while.
    static let stripeOldWebhookSecret = "whsec_e2e_old_fedcba9876543210"

    /// The variables that point Huawei and Stripe at the stub under `url`.
    /// Amazon's notifications are signed by the stub's SNS certificate, trusted here as the lab's
    /// executable trusts it (the product trusts Amazon SNS's alone).
    static func pluginStoreEnvironment(_ stub: StubAppStore, url: String) -> EnvironmentReader {
        SNSCertificateTrust.trustLab(prefix: url + "/amazon/sns/")
        let settings = stub.pluginStoreSettings(
            baseURL: url, stripeWebhookSecrets: [stripeWebhookSecret, stripeOldWebhookSecret])
        return EnvironmentReader(settings.values.reduce(into: [:]) { $0.merge($1) { first, _ in first } })
    }

    // MARK: - Huawei

    /// `POST /v1/receipts` of a Huawei purchase, as a backend posts it.
    func submitHuawei(
        account: String, token: String, product: String, type: String = "consumable", subscriptionID: String? = nil
    ) async throws -> (Int, [String: Any]) {
        var huawei = ["product_id": product, "purchase_token": token, "type": type]
        huawei["subscription_id"] = subscriptionID
        return try await post("/v1/receipts", ["account_id": account, "huawei": huawei])
    }

    // MARK: - Xiaomi

    /// `GET /v1/xiaomi/notifications?<query>`, as Xiaomi calls it; the status and its `errcode`.
    func deliverXiaomi(_ query: String) async throws -> (status: Int, errcode: Int?) {
        let response = try await client.execute(
            HTTPClient.HTTPRequest(url: "http://127.0.0.1:\(intakePort)/v1/xiaomi/notifications?\(query)"))
        let answer = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, answer?["errcode"] as? Int)
    }

    /// `POST /v1/receipts` of a Xiaomi order, as a backend heard of it from its client.
    func submitXiaomi(account: String, cpOrderID: String, uid: String = "100010") async throws -> (Int, [String: Any]) {
        try await post(
            "/v1/receipts",
            ["account_id": account, "xiaomi": ["app_id": StubXiaomi.appID, "cp_order_id": cpOrderID, "uid": uid]])
    }

    // MARK: - Amazon

    /// `POST /v1/receipts` of an Amazon purchase, as a backend posts what the Appstore SDK gave.
    func submitAmazon(account: String, userID: String, receiptID: String) async throws -> (Int, [String: Any]) {
        try await post(
            "/v1/receipts", ["account_id": account, "amazon": ["user_id": userID, "receipt_id": receiptID]])
    }

    /// `POST /v1/amazon/notifications` of what SNS posts (`text/plain`); the status and the answer.
    func deliverAmazon(_ message: SNSMessage) async throws -> (Int, [String: Any]) {
        try await postStoreNotification(
            "amazon", body: message.body,
            headers: [(name: "x-amz-sns-message-type", value: message.kind.rawValue)],
            contentType: "text/plain; charset=UTF-8")
    }

    // MARK: - Stores' notifications

    /// `POST /v1/<store>/notifications` with `body` as the store sends it (no backend token).
    func postStoreNotification(
        _ store: String, body: [UInt8], headers extra: [(name: String, value: String)] = [],
        contentType: String = "application/json"
    ) async throws -> (Int, [String: Any]) {
        let response = try await client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(intakePort)/v1/\(store)/notifications",
                headers: [(name: "Content-Type", value: contentType)] + extra, body: body))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// Delivers Stripe's event `type` about `object` as it is now, signed with the endpoint's
    /// secret (or `secret`), under `eventID`; the status and the answer.
    func deliverStripe(
        _ type: String, object: String, eventID: String, secret: String = PipelineHarness.stripeWebhookSecret
    ) async throws -> (Int, [String: Any]) {
        let event = try #require(stub.stripe.signedEvent(type, object: object, secret: secret, eventID: eventID))
        return try await postStoreNotification(
            "stripe", body: event.body, headers: [(name: "Stripe-Signature", value: event.signature)])
    }

    /// Waits until the notification `id` is final (applied, rejected or dead); its details.
    func settledNotification(_ id: String, timeout: Duration = .seconds(30)) async throws -> NotificationDetails? {
        let store = NotificationRepository(database)
        _ = await eventually(timeout: timeout) {
            guard let status = try? await store.notification(id: id)?.status else { return false }
            return [.applied, .rejected, .dead].contains(status)
        }
        return try await store.notification(id: id)
    }

    /// How many notifications (of every store) are stored.
    func storedNotifications() async throws -> Int {
        try await ReceiptRepository(database).notificationStatusCounts().values.reduce(0, +)
    }

    /// How many receipts are stored.
    func storedReceipts() async throws -> Int {
        try await database.snapshot { try await $0.rows("SELECT id FROM receipts") }.count
    }

    /// When `account`'s entitlement `name` ends; nil when it has none.
    func entitlementEnd(_ account: String, _ name: String = "vip") async throws -> Date? {
        try await LedgerRepository(database).account(id: account)?.entitlements.first { $0.name == name }?.expiresAt
    }

    /// The kinds of `account`'s ledger entries, newest first.
    func ledgerKinds(_ account: String) async throws -> [LedgerKind] {
        try await LedgerRepository(database).account(id: account)?.ledger.map(\.kind) ?? []
    }

    /// The accepted webhooks of `type` whose body mentions `text`, waited for until `count` arrived.
    func webhooks(_ type: String, mentioning text: String, count: Int = 1) async throws -> [[String: Any]] {
        let deliveries = try await receiver.waitFor(count: count, timeout: .seconds(30)) {
            $0.bodyString.contains("\"type\":\"\(type)\"") && $0.bodyString.contains(text)
        }
        return deliveries.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
    }
}
