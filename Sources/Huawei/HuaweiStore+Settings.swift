import PipelineCore

extension HuaweiStore {
    /// The app (its client id, not a secret) and where its orders are asked.
    public var summary: String { "client \(settings.clientID)  orders: \(settings.orderURL)" }

    public static let variablePrefixes = ["IAP_HUAWEI_"]

    /// `huawei:` in an app of the apps file.
    public static let appsFileSection = AppsFileSection(
        "huawei",
        members: [
            "client_id": .init(variable: "IAP_HUAWEI_CLIENT_ID", isIdentity: true),
            "client_secret": .init(variable: "IAP_HUAWEI_CLIENT_SECRET", isSecret: true, isUnique: true),
            // Signs one app's purchase data and notifications: shared, one app's signed
            // notifications verify as the other's. Public, but too long to print.
            "public_key": .init(variable: "IAP_HUAWEI_PUBLIC_KEY", isUnique: true),
        ],
        required: ["": ["client_id", "client_secret", "public_key"]])
}
