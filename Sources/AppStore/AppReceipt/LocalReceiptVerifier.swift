import Logging
import PipelineCore

/// The validator's verifier for legacy receipts checked locally with ``AppReceiptVerifier``,
/// answering exactly as ``VerifyReceiptVerifier`` would for the same receipt.
///
/// A verified receipt becomes the `verifyReceipt` answer Apple would have given (status 0, the
/// receipt's `in_app` entries) and goes through ``VerifyReceiptExchange/classify(_:from:bundleID:)``,
/// so the transactions, their defaults (original id, quantity) and the environment name
/// (`Production`, `Sandbox`) are the same, and the fulfiller credits identically. A receipt that
/// fails a check is rejected for good with the ``AppReceiptError/rejectionReason``.
public struct LocalReceiptVerifier: ReceiptVerifier {
    /// What a local check concluded.
    public enum Answer: Hashable, Sendable {
        /// Judged: valid, or rejected with a reason.
        case decided(VerificationOutcome)
        /// Could not be read (not base64, not PKCS #7, not a receipt, an algorithm not
        /// implemented): Apple may still know what it is.
        case undecided(AppReceiptError)
    }

    /// The checks and their configuration.
    public let verifier: AppReceiptVerifier
    private let logger: Logger

    /// Creates a verifier.
    /// - Parameters:
    ///   - verifier: The local checks; its bundle id must be set, the app's.
    ///   - logger: Where rejections are logged, at debug level.
    public init(verifier: AppReceiptVerifier, logger: Logger = Logger(label: "AppStore.localReceipt")) {
        self.verifier = verifier
        self.logger = logger
    }

    /// Verifies `submission`'s legacy receipt locally; unreadable receipts are rejected.
    public func verify(_ submission: Submission) async -> VerificationOutcome {
        switch await answer(submission) {
        case .decided(let outcome): return outcome
        case .undecided(let error): return .rejected(reason: error.rejectionReason)
        }
    }

    /// Verifies `submission`'s legacy receipt locally, saying whether it could judge it.
    /// - Parameter submission: As the intake committed it.
    /// - Returns: The outcome, or the error that kept it from deciding.
    public func answer(_ submission: Submission) async -> Answer {
        guard let receiptData = submission.evidence.legacyReceipt, !receiptData.isEmpty else {
            return .decided(
                .rejected(
                    reason: submission.evidence.signedTransaction == nil
                        ? VerifyReceiptVerifier.missingReceipt : VerifyReceiptVerifier.signedTransactionUnsupported))
        }
        do {
            let receipt = try await verifier.verify(base64: receiptData)
            return .decided(Self.outcome(receipt, bundleID: verifier.configuration.bundleID ?? ""))
        } catch {
            logger.debug(
                "receipt not verified locally",
                metadata: ["receipt_id": "\(submission.id)", "reason": "\(error.reason.rawValue)"])
            return error.isDecided ? .decided(.rejected(reason: error.rejectionReason)) : .undecided(error)
        }
    }

    /// The outcome `verifyReceipt` would answer for `receipt`.
    static func outcome(_ receipt: AppReceipt, bundleID: String) -> VerificationOutcome {
        let environment = receipt.environment?.pipelineName ?? receipt.rawEnvironment ?? "Production"
        let body = VerifyReceiptResponse(
            status: VerifyReceiptStatus(rawValue: 0), environment: environment,
            receipt: VerifyReceiptResponse.Receipt(
                bundleID: receipt.bundleID, applicationVersion: receipt.appVersion,
                receiptType: receipt.rawEnvironment, inApp: receipt.inAppPurchases.map(\.verifyReceiptTransaction)))
        switch VerifyReceiptExchange.classify(
            body, from: receipt.environment == .production ? .production : .sandbox, bundleID: bundleID)
        {
        case .outcome(let outcome): return outcome
        // Status 0 never redirects.
        case .redirect: return .transient(reason: "unexpected_redirect")
        }
    }
}
