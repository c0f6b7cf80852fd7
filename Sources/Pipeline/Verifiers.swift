import AppStore
import GooglePlay
import Logging
import PipelineCore

/// The one verifier a validator needs: legacy receipts to `verifyReceipt`, signed
/// transactions and notifications to local JWS verification, subscription checks to the
/// App Store Server API (or `verifyReceipt` with the latest receipt).
public enum Verifiers {
    /// - Parameters:
    ///   - signedData: nil when StoreKit 2 is not configured; signed data is then rejected
    ///     with a reason that says so, rather than retried for ever.
    ///   - serverAPI: when set, signed transactions are also confirmed with Apple.
    ///   - googlePlay: nil when Google Play is not configured; its purchases are then
    ///     rejected with a reason that says so (dead letters to replay once it is).
    public static func make(
        legacy: any ReceiptVerifier, signedData: SignedDataVerifier?, serverAPI: AppStoreServerAPIClient? = nil,
        googlePlay: GooglePlayVerifier? = nil
    ) -> any ReceiptVerifier {
        let apple: any ReceiptVerifier
        if let signedData {
            let local = StoreKitVerifier(verifier: signedData)
            let confirmed: any ReceiptVerifier =
                serverAPI.map { ServerConfirmedVerifier(local: local, client: $0, signedData: signedData) } ?? local
            apple = SubscriptionStatusVerifier(
                next: RoutingVerifier(legacy: legacy, signedData: confirmed), client: serverAPI,
                signedData: signedData)
        } else {
            apple = SubscriptionStatusVerifier(
                next: RoutingVerifier(legacy: legacy, signedData: Rejecting(reason: notConfigured)), client: nil,
                signedData: nil)
        }
        return StoreRouting(
            apple: apple, googlePlay: googlePlay ?? Rejecting(reason: googlePlayNotConfigured))
    }

    public static let notConfigured = "storekit2_not_configured"
    public static let googlePlayNotConfigured = "google_play_not_configured"

    /// Google Play purchases and notices to Google, everything else to Apple's verifiers.
    struct StoreRouting: ReceiptVerifier {
        let apple: any ReceiptVerifier
        let googlePlay: any ReceiptVerifier

        func verify(_ submission: Submission) async -> VerificationOutcome {
            submission.evidence.isGooglePlay ? await googlePlay.verify(submission) : await apple.verify(submission)
        }
    }

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
