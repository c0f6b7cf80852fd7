import AppStore
import PipelineCore

/// The one verifier a validator needs: legacy receipts to `verifyReceipt`, signed
/// transactions and notifications to local JWS verification, subscription checks to the
/// App Store Server API (or `verifyReceipt` with the latest receipt).
public enum Verifiers {
    /// - Parameters:
    ///   - signedData: nil when StoreKit 2 is not configured; signed data is then rejected
    ///     with a reason that says so, rather than retried for ever.
    ///   - serverAPI: when set, signed transactions are also confirmed with Apple.
    public static func make(
        legacy: any ReceiptVerifier, signedData: SignedDataVerifier?, serverAPI: AppStoreServerAPIClient? = nil
    ) -> any ReceiptVerifier {
        guard let signedData else {
            return SubscriptionStatusVerifier(
                next: RoutingVerifier(legacy: legacy, signedData: Rejecting(reason: notConfigured)), client: nil,
                signedData: nil)
        }
        let local = StoreKitVerifier(verifier: signedData)
        let confirmed: any ReceiptVerifier =
            serverAPI.map { ServerConfirmedVerifier(local: local, client: $0, signedData: signedData) } ?? local
        return SubscriptionStatusVerifier(
            next: RoutingVerifier(legacy: legacy, signedData: confirmed), client: serverAPI, signedData: signedData)
    }

    public static let notConfigured = "storekit2_not_configured"

    struct Rejecting: ReceiptVerifier {
        let reason: String
        func verify(_ submission: Submission) async -> VerificationOutcome { .rejected(reason: reason) }
    }
}
