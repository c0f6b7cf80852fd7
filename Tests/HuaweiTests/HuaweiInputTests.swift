import Foundation
import Huawei
import PipelineCore
import StorePlugins
import Testing

/// What the intake refuses before anything is stored: a bad `huawei` receipt member, and
/// settings that cannot work.
@Suite struct HuaweiInputTests {
    static let key = StubKey.base64

    static var store: HuaweiStore {
        HuaweiStore(
            settings: HuaweiSettings(
                clientID: "1", clientSecret: "s", publicKey: HuaweiPublicKey(base64: key)!))
    }

    @Test func aGoodMemberIsCanonicalEvidence() throws {
        let evidence = try Self.store.receiptEvidence(
            ["type": "subscription", "subscription_id": "s-1", "purchase_token": "t-1", "product_id": "vip"])
        #expect(evidence.store == "huawei" && evidence.kind == "purchase")
        #expect(
            evidence.payload
                == #"{"product_id":"vip","purchase_token":"t-1","subscription_id":"s-1","type":"subscription"}"#)
        #expect(HuaweiPurchase(payload: evidence.payload)?.subscriptionID == "s-1")
        #expect(Self.store.receiptMember == "huawei" && Self.store.takesNotifications)
    }

    @Test func eachBadMemberIsRefusedByName() {
        let good: [String: Any] = ["product_id": "coins_100", "purchase_token": "t-1", "type": "consumable"]
        let table: [(Any, String)] = [
            ("a string", "huawei"),
            (good.merging(["extra": 1]) { $1 }, "huawei.extra"),
            (good.filter { $0.key != "product_id" }, "huawei.product_id"),
            (good.merging(["product_id": ""]) { $1 }, "huawei.product_id"),
            (good.merging(["product_id": String(repeating: "p", count: 257)]) { $1 }, "huawei.product_id"),
            (good.filter { $0.key != "purchase_token" }, "huawei.purchase_token"),
            (good.merging(["purchase_token": 42]) { $1 }, "huawei.purchase_token"),
            (good.merging(["purchase_token": "has space"]) { $1 }, "huawei.purchase_token"),
            (good.filter { $0.key != "type" }, "huawei.type"),
            (good.merging(["type": "gift"]) { $1 }, "huawei.type"),
            (good.merging(["type": "subscription"]) { $1 }, "huawei.subscription_id"),
            (good.merging(["subscription_id": "s-1"]) { $1 }, "huawei.subscription_id"),
        ]
        for (value, member) in table {
            let error = #expect(throws: StoreInputError.self) { _ = try Self.store.receiptEvidence(value) }
            #expect(error?.status == 400 && error?.member == member, "\(member): \(String(describing: error))")
        }
    }

    @Test func settingsComeFromTheEnvironment() throws {
        #expect(try HuaweiStore(environment: EnvironmentReader([:])) == nil)
        let settings = try #require(
            try HuaweiSettings(
                environment: EnvironmentReader([
                    "IAP_HUAWEI_CLIENT_ID": "107654321", "IAP_HUAWEI_CLIENT_SECRET": "s3cret",
                    "IAP_HUAWEI_PUBLIC_KEY": Self.key,
                    "IAP_HUAWEI_ORDER_URL": "https://orders-dra.iap.cloud.huawei.asia/",
                ])))
        #expect(settings.oauthURL == "https://oauth-login.cloud.huawei.com/oauth2/v3/token")
        #expect(settings.orderURL == "https://orders-dra.iap.cloud.huawei.asia")
        #expect(settings.subscriptionURL == "https://subscr-dre.iap.cloud.huawei.eu")
        #expect(settings.quota.perSecond == 50)
        #expect(settings.quota.budget(clientID: "107654321").name == "huawei/107654321")
        let paced = try #require(
            try HuaweiSettings(
                environment: EnvironmentReader([
                    "IAP_HUAWEI_CLIENT_ID": "107654321", "IAP_HUAWEI_CLIENT_SECRET": "s3cret",
                    "IAP_HUAWEI_PUBLIC_KEY": Self.key, "IAP_HUAWEI_CALLS_PER_SECOND": "20",
                ])))
        #expect(paced.quota.perSecond == 20)
    }

    @Test func badSettingsNameTheVariableAndNeverTheSecret() {
        let good = [
            "IAP_HUAWEI_CLIENT_ID": "107654321", "IAP_HUAWEI_CLIENT_SECRET": "s3cret-value",
            "IAP_HUAWEI_PUBLIC_KEY": Self.key,
        ]
        let table: [([String: String], String)] = [
            (good.filter { $0.key != "IAP_HUAWEI_CLIENT_SECRET" }, "IAP_HUAWEI_CLIENT_SECRET"),
            (good.filter { $0.key != "IAP_HUAWEI_PUBLIC_KEY" }, "IAP_HUAWEI_PUBLIC_KEY"),
            (good.merging(["IAP_HUAWEI_PUBLIC_KEY": "bm90IGEga2V5"]) { $1 }, "IAP_HUAWEI_PUBLIC_KEY"),
            (good.merging(["IAP_HUAWEI_CLIENT_ID": "has space"]) { $1 }, "IAP_HUAWEI_CLIENT_ID"),
            (good.merging(["IAP_HUAWEI_OAUTH_URL": "ftp://x"]) { $1 }, "IAP_HUAWEI_OAUTH_URL"),
            (good.merging(["IAP_HUAWEI_ORDER_URL": "orders"]) { $1 }, "IAP_HUAWEI_ORDER_URL"),
            (good.merging(["IAP_HUAWEI_SUBSCRIPTION_URL": "x://"]) { $1 }, "IAP_HUAWEI_SUBSCRIPTION_URL"),
            (good.merging(["IAP_HUAWEI_CALLS_PER_SECOND": "0"]) { $1 }, "IAP_HUAWEI_CALLS_PER_SECOND"),
            (good.merging(["IAP_HUAWEI_CALLS_PER_SECOND": "1001"]) { $1 }, "IAP_HUAWEI_CALLS_PER_SECOND"),
            (good.merging(["IAP_HUAWEI_CALLS_PER_SECOND": "fast"]) { $1 }, "IAP_HUAWEI_CALLS_PER_SECOND"),
        ]
        for (values, variable) in table {
            let error = #expect(throws: SettingError.self) {
                _ = try HuaweiStore(environment: EnvironmentReader(values))
            }
            #expect(error?.variable == variable)
            #expect(error?.description.contains("s3cret-value") == false)
            #expect(error?.description.contains(Self.key.prefix(40)) == false)
        }
    }
}
