import Logging
import PipelineCore

/// The one verifier a validator needs: legacy receipts to `verifyReceipt`, signed
/// transactions and notifications to local JWS verification, subscription checks to the
/// App Store Server API (or `verifyReceipt` with the latest receipt). Apple's alone: every
/// other store's evidence is routed to its plug-in (`PluginStores`).
public enum Verifiers {
    /// - Parameters:
    ///   - signedData: nil when StoreKit 2 is not configured; signed data is then rejected
    ///     with a reason that says so, rather than retried for ever.
    ///   - serverAPI: when set, signed transactions are also confirmed with Apple.
    public static func make(
        legacy: any ReceiptVerifier, signedData: SignedDataVerifier?, serverAPI: AppStoreServerAPIClient? = nil
    ) -> any ReceiptVerifier {
        if let signedData {
            let local = StoreKitVerifier(verifier: signedData)
            let confirmed: any ReceiptVerifier =
                serverAPI.map { ServerConfirmedVerifier(local: local, client: $0, signedData: signedData) } ?? local
            return SubscriptionStatusVerifier(
                next: RoutingVerifier(legacy: legacy, signedData: confirmed), client: serverAPI,
                signedData: signedData)
        }
        return SubscriptionStatusVerifier(
            next: RoutingVerifier(legacy: legacy, signedData: Rejecting(reason: notConfigured)), client: nil,
            signedData: nil)
    }

    public static let notConfigured = "storekit2_not_configured"

    /// The verifier for legacy receipts in `mode`: Apple's `verifyReceipt` alone (`apple`), or
    /// the local checks with Apple behind them as ``LegacyReceiptVerifier`` documents.
    /// - Parameters:
    ///   - mode: `IAP_RECEIPT_VERIFICATION`.
    ///   - appReceipt: The local checks' configuration; its bundle id must be the app's.
    ///   - apple: Apple's `verifyReceipt` (subscription checks always go there).
    /// - Throws: ``SignedDataConfigurationError`` for roots that are not certificates.
    public static func legacy(
        mode: ReceiptVerificationMode, appReceipt: AppReceiptVerifier.Configuration, apple: any ReceiptVerifier,
        logger: Logger
    ) throws -> any ReceiptVerifier {
        guard mode != .apple else { return apple }
        let local = LocalReceiptVerifier(verifier: try AppReceiptVerifier(configuration: appReceipt), logger: logger)
        return LegacyReceiptVerifier(mode: mode, local: local, apple: apple)
    }

    struct Rejecting: ReceiptVerifier {
        let reason: String
        func verify(_ submission: Submission) async -> VerificationOutcome { .rejected(reason: reason) }
    }
}
