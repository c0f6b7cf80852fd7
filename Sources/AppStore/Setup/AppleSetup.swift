import HTTPClient
import Logging
import PipelineCore

/// Apple as a deployment configures it: how its receipts and signed data are verified, and
/// the App Store Server API's credentials, read from its variables
/// (``init(environment:)``). Every stage that talks to Apple is composed from this
/// one value.
public struct AppleSetup: Sendable {
    /// `verifyReceipt`'s endpoints, bundle id and shared secret.
    public var verifyReceipt: VerifyReceiptVerifier.Configuration
    /// How legacy receipts are verified (`IAP_RECEIPT_VERIFICATION`); `apple` by default.
    public var receiptVerification = ReceiptVerificationMode.apple
    /// The local checks of `local` and `local-then-apple`; nil trusts Apple Inc. Root CA for
    /// ``verifyReceipt``'s bundle id.
    public var appReceipt: AppReceiptVerifier.Configuration?
    /// StoreKit 2 verification; nil rejects signed transactions and notifications.
    public var signedData: SignedDataVerifier?
    /// App Store Server API credentials; set, signed transactions are confirmed with Apple and
    /// the fulfiller's jobs that call Apple can run.
    public var serverAPIKey: AppStoreServerAPIKey?
    public var serverAPI = AppStoreServerAPIClient.Configuration()
    /// Who signs the notifications the intake takes (`IAP_APPLE_ROOT_CA`, Apple Root CA - G3
    /// by default): ``signedData``'s own where there is one, so that one process caches the
    /// chains it validated once.
    public var notificationSignatures: SignedDataAuthenticator

    public init(verifyReceipt: VerifyReceiptVerifier.Configuration, signedData: SignedDataVerifier? = nil) {
        self.verifyReceipt = verifyReceipt
        self.signedData = signedData
        self.notificationSignatures = signedData?.authenticator ?? .appleRoot
    }

    /// The pipeline's other apps (`IAP_APPS`), by their bundle ids: a receipt of one of
    /// theirs is refused naming it, whether Apple or the local checks read it.
    public var otherApps: OtherApps {
        get { verifyReceipt.otherApps }
        set {
            verifyReceipt.otherApps = newValue
            appReceipt?.otherApps = newValue
        }
    }

    /// The verifier of Apple's evidence (``Verifiers``) over `client`.
    public func verifier(client: CurlHTTPClient, budgets: any CallBudgetKeeper, logger: Logger) throws
        -> any ReceiptVerifier
    {
        let legacy = try Verifiers.legacy(
            mode: receiptVerification, appReceipt: appReceipt ?? localChecks,
            apple: try VerifyReceiptVerifier(configuration: verifyReceipt, client: client, logger: logger),
            logger: logger)
        return Verifiers.make(
            legacy: legacy, signedData: signedData,
            serverAPI: try serverAPIClient(client: client, budgets: budgets, logger: logger))
    }

    /// The local checks when none are configured: Apple Inc. Root CA, for this app.
    private var localChecks: AppReceiptVerifier.Configuration {
        var checks = AppReceiptVerifier.Configuration(bundleID: verifyReceipt.bundleID)
        checks.otherApps = otherApps
        return checks
    }

    /// The App Store Server API over `client`, or nil without credentials.
    public func serverAPIClient(client: CurlHTTPClient, budgets: any CallBudgetKeeper, logger: Logger) throws
        -> AppStoreServerAPIClient?
    {
        try serverAPIKey.map {
            try AppStoreServerAPIClient(
                key: $0, configuration: serverAPI, httpClient: client, budgets: budgets, logger: logger)
        }
    }
}
