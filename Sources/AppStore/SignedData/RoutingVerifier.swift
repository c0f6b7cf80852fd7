import PipelineCore

/// One verifier for the validator: StoreKit 2 signed data to one verifier, legacy receipts to another.
///
/// A submission with a `signedPayload` or a `signedTransaction` goes to `signedData` (normally a
/// ``StoreKitVerifier``); anything else, `receiptData` or nothing, goes to `legacy` (normally a
/// ``VerifyReceiptVerifier``), which also owns the "missing receipt" rejection.
///
/// ```swift
/// let verifier = RoutingVerifier(
///     legacy: try VerifyReceiptVerifier(configuration: receiptConfiguration, client: client),
///     signedData: StoreKitVerifier(verifier: signedDataVerifier))
/// ```
public struct RoutingVerifier: ReceiptVerifier {
    /// Verifies legacy `receipt_data`.
    public let legacy: any ReceiptVerifier
    /// Verifies `signed_transaction` and `signed_payload`.
    public let signedData: any ReceiptVerifier

    /// Creates a router.
    /// - Parameters:
    ///   - legacy: For `receipt_data` submissions.
    ///   - signedData: For `signed_transaction` and `signed_payload` submissions.
    public init(legacy: any ReceiptVerifier, signedData: any ReceiptVerifier) {
        self.legacy = legacy
        self.signedData = signedData
    }

    /// Asks the verifier that understands `submission`.
    /// - Parameter submission: As the intake committed it.
    /// - Returns: That verifier's outcome, unchanged.
    public func verify(_ submission: Submission) async -> VerificationOutcome {
        if Self.isSignedData(submission) {
            return await signedData.verify(submission)
        }
        return await legacy.verify(submission)
    }

    static func isSignedData(_ submission: Submission) -> Bool {
        submission.evidence.signedPayload?.isEmpty == false || submission.evidence.signedTransaction?.isEmpty == false
    }
}
