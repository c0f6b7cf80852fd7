import AppStore
import PipelineCore

/// The one verifier a validator needs: legacy receipts to `verifyReceipt`, signed
/// transactions and notifications to local JWS verification.
public enum Verifiers {
    /// - Parameters:
    ///   - signedData: nil when StoreKit 2 is not configured; signed data is then rejected
    ///     with a reason that says so, rather than retried for ever.
    public static func make(legacy: any ReceiptVerifier, signedData: SignedDataVerifier?) -> any ReceiptVerifier {
        RoutingVerifier(
            legacy: legacy,
            signedData: signedData.map { StoreKitVerifier(verifier: $0) } ?? Rejecting(reason: notConfigured))
    }

    public static let notConfigured = "storekit2_not_configured"

    struct Rejecting: ReceiptVerifier {
        let reason: String
        func verify(_ submission: Submission) async -> VerificationOutcome { .rejected(reason: reason) }
    }
}
