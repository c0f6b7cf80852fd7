import PipelineCore

/// Legacy receipts by ``ReceiptVerificationMode``: locally, with Apple, or locally with Apple
/// for what the local check cannot read.
///
/// Subscription checks always go to Apple: a receipt the app sent once says nothing of the
/// renewals and refunds since, which only `verifyReceipt` (or the Server API) knows.
public struct LegacyReceiptVerifier: ReceiptVerifier {
    /// The mode in use.
    public let mode: ReceiptVerificationMode
    /// The local checks; unused in `apple` mode.
    public let local: LocalReceiptVerifier?
    /// Apple's `verifyReceipt` (normally a ``VerifyReceiptVerifier``).
    public let apple: any ReceiptVerifier

    /// Creates a verifier.
    /// - Parameters:
    ///   - mode: How receipts are verified.
    ///   - local: The local checks; required unless `mode` is `apple`.
    ///   - apple: Apple's `verifyReceipt`.
    public init(mode: ReceiptVerificationMode, local: LocalReceiptVerifier?, apple: any ReceiptVerifier) {
        self.mode = local == nil ? .apple : mode
        self.local = local
        self.apple = apple
    }

    public func verify(_ submission: Submission) async -> VerificationOutcome {
        guard let local, mode != .apple, submission.evidence.checkedSubscription == nil else {
            return await apple.verify(submission)
        }
        switch await local.answer(submission) {
        case .decided(let outcome): return outcome
        case .undecided(let error):
            guard mode == .localThenApple else { return .rejected(reason: error.rejectionReason) }
            return await apple.verify(submission)
        }
    }
}
