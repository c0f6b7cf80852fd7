import Huawei

extension StubHuawei: StubStorePart {
    public static let storeID = HuaweiStore.id

    /// The stub's app credentials, its purchase-signing key and its three services.
    public func settings(_ base: StubStoreBase) throws -> [String: String] {
        [
            "IAP_HUAWEI_CLIENT_ID": Self.clientID,
            "IAP_HUAWEI_CLIENT_SECRET": Self.clientSecret,
            "IAP_HUAWEI_PUBLIC_KEY": publicKeyBase64,
            "IAP_HUAWEI_OAUTH_URL": base.url + "/huawei/oauth2/v3/token",
            "IAP_HUAWEI_ORDER_URL": base.url + "/huawei/orders",
            "IAP_HUAWEI_SUBSCRIPTION_URL": base.url + "/huawei/subscr",
        ]
    }
}
