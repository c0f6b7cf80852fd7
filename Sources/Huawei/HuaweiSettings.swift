import Foundation
import PipelineCore

/// How the pipeline reaches Huawei's IAP servers, read from the environment.
///
/// - `IAP_HUAWEI_CLIENT_ID`: the app's OAuth client id (AppGallery Connect); unset turns Huawei off
/// - `IAP_HUAWEI_CLIENT_SECRET`: its secret, required with the id
/// - `IAP_HUAWEI_PUBLIC_KEY`: the app's IAP public key, base64 DER, that checks the
///   signatures of purchase data and notifications
/// - `IAP_HUAWEI_OAUTH_URL`, `IAP_HUAWEI_ORDER_URL`, `IAP_HUAWEI_SUBSCRIPTION_URL`: where the
///   token endpoint, the Order service and the Subscription service are (Huawei's Germany
///   site by default)
/// - `IAP_HUAWEI_CALLS_PER_SECOND`: the calls a second every process together makes to
///   those services (``HuaweiQuota``, 50 by default, 1-1000)
public struct HuaweiSettings: Sendable {
    public static let clientIDVariable = "IAP_HUAWEI_CLIENT_ID"
    public static let defaultOAuthURL = "https://oauth-login.cloud.huawei.com/oauth2/v3/token"
    /// Huawei's Germany site (Europe), one of the sites its common statement lists.
    public static let defaultOrderURL = "https://orders-dre.iap.cloud.huawei.eu"
    public static let defaultSubscriptionURL = "https://subscr-dre.iap.cloud.huawei.eu"

    public var clientID: String
    public var clientSecret: String
    public var publicKey: HuaweiPublicKey
    public var oauthURL: String
    public var orderURL: String
    public var subscriptionURL: String
    /// How fast the Order and Subscription services are called.
    public var quota: HuaweiQuota

    public init(
        clientID: String, clientSecret: String, publicKey: HuaweiPublicKey, oauthURL: String = defaultOAuthURL,
        orderURL: String = defaultOrderURL, subscriptionURL: String = defaultSubscriptionURL,
        quota: HuaweiQuota = .init()
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.publicKey = publicKey
        self.oauthURL = oauthURL
        self.orderURL = Self.trimmed(orderURL)
        self.subscriptionURL = Self.trimmed(subscriptionURL)
        self.quota = quota
    }

    /// The settings the environment asks for, or nil when `IAP_HUAWEI_CLIENT_ID` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault; it never quotes the secret or the key.
    public init?(environment env: EnvironmentReader) throws(SettingError) {
        guard let clientID = env.optional(Self.clientIDVariable) else { return nil }
        guard clientID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), clientID.utf8.count <= 128 else {
            throw SettingError(
                variable: Self.clientIDVariable, problem: "must be printable ASCII, at most 128 characters")
        }
        let secret = try env.required("IAP_HUAWEI_CLIENT_SECRET")
        let keyText = try env.required("IAP_HUAWEI_PUBLIC_KEY")
        guard let key = HuaweiPublicKey(base64: keyText) else {
            throw SettingError(
                variable: "IAP_HUAWEI_PUBLIC_KEY",
                problem:
                    "must be the IAP public key from AppGallery Connect: base64 of an RSA key's DER, 2048 bits or more")
        }
        self.init(
            clientID: clientID, clientSecret: secret, publicKey: key,
            oauthURL: try env.httpURL("IAP_HUAWEI_OAUTH_URL", default: Self.defaultOAuthURL)!,
            orderURL: try env.httpURL("IAP_HUAWEI_ORDER_URL", default: Self.defaultOrderURL)!,
            subscriptionURL: try env.httpURL("IAP_HUAWEI_SUBSCRIPTION_URL", default: Self.defaultSubscriptionURL)!,
            quota: try HuaweiQuota(environment: env))
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
