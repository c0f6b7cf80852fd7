import Foundation
import HTTPClient
import PipelineCore

/// How a validator reaches Google Play: the service account (`IAP_GOOGLE_SERVICE_ACCOUNT`,
/// a key file's path), the API (`IAP_GOOGLE_PLAY_API_URL`, Google's by default) and the apps
/// accepted (`IAP_GOOGLE_PACKAGE_NAMES`, any by default). Without a service account Google
/// Play is off: its purchases are dead-lettered as `google_play_not_configured`.
public struct GooglePlaySetup: Sendable {
    public var account: GoogleServiceAccount
    public var apiURL: String
    public var packageNames: Set<String>

    public init(account: GoogleServiceAccount, apiURL: String, packageNames: Set<String> = []) {
        self.account = account
        self.apiURL = apiURL
        self.packageNames = packageNames
    }

    /// The setup the environment asks for, or nil when `IAP_GOOGLE_SERVICE_ACCOUNT` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault (never the key's contents).
    public init?(environment env: EnvironmentReader) throws(SettingError) {
        guard let path = env.optional(GoogleServiceAccount.setting) else { return nil }
        self.account = try GoogleServiceAccount(path: path)
        self.apiURL = try env.httpURL("IAP_GOOGLE_PLAY_API_URL", default: "https://androidpublisher.googleapis.com")!
        self.packageNames = Set(env.list("IAP_GOOGLE_PACKAGE_NAMES"))
    }

    /// A client over `httpClient` (shared, not owned), its quota's budgets kept in `budgets`
    /// (the pipeline's store, for every process to share).
    public func client(httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper())
        -> GooglePlayClient
    {
        GooglePlayClient(
            account: account, configuration: .init(apiURL: apiURL), httpClient: httpClient, budgets: budgets)
    }

    /// A verifier over `httpClient` (shared, not owned), reading `catalog`'s subscriptions.
    public func verifier(
        httpClient: CurlHTTPClient, catalog: Catalog, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper()
    ) -> GooglePlayVerifier {
        GooglePlayVerifier(
            client: client(httpClient: httpClient, budgets: budgets),
            configuration: .init(packageNames: packageNames, catalog: catalog))
    }
}
