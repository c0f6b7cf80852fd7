import Foundation
import PipelineCore

/// How the pipeline reaches Xiaomi's game payment server, read from the environment.
///
/// - `IAP_XIAOMI_APP_ID`: the game's `appId` (Xiaomi's developer site); unset turns Xiaomi off
/// - `IAP_XIAOMI_APP_SECRET`: its `AppSecret`, required with the id: the key of every
///   signature between Xiaomi's server and ours (the `AppKey` is the client SDK's, not this)
/// - `IAP_XIAOMI_QUERY_URL`: Xiaomi's order query (`queryOrder.do`), Xiaomi's own by default
/// - `IAP_XIAOMI_CALLS_PER_SECOND`: the order queries a second every process together
///   makes (20 by default, 1-1000)
public struct XiaomiSettings: Sendable {
    public static let appIDVariable = "IAP_XIAOMI_APP_ID"
    public static let defaultQueryURL = "https://mis.migc.xiaomi.com/api/biz/service/queryOrder.do"
    public static let callsVariable = "IAP_XIAOMI_CALLS_PER_SECOND"

    public var appID: String
    public var appSecret: String
    public var queryURL: String
    /// Order queries a second, every process together.
    public var callsPerSecond: Double
    /// The longest a query waits in-process for its turn; past that its message is deferred.
    public var maxWait: Duration = .seconds(10)

    public init(appID: String, appSecret: String, queryURL: String = defaultQueryURL, callsPerSecond: Double = 20) {
        self.appID = appID
        self.appSecret = appSecret
        self.queryURL = queryURL
        self.callsPerSecond = callsPerSecond
    }

    /// The settings the environment asks for, or nil when `IAP_XIAOMI_APP_ID` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault; it never quotes the secret.
    public init?(environment env: EnvironmentReader) throws(SettingError) {
        guard let appID = env.optional(Self.appIDVariable) else { return nil }
        guard (1...64).contains(appID.utf8.count), appID.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw SettingError(variable: Self.appIDVariable, problem: "must be Xiaomi's numeric appId")
        }
        let secret = try env.required("IAP_XIAOMI_APP_SECRET")
        guard secret.utf8.count >= 8, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw SettingError(
                variable: "IAP_XIAOMI_APP_SECRET",
                problem: "must be the AppSecret: printable ASCII, 8 characters or more")
        }
        self.init(
            appID: appID, appSecret: secret,
            queryURL: try env.httpURL("IAP_XIAOMI_QUERY_URL", default: Self.defaultQueryURL)!,
            callsPerSecond: Double(try env.int(Self.callsVariable, default: 20, range: 1...1000)))
    }
}
