/// How the validator verifies legacy app receipts (`IAP_RECEIPT_VERIFICATION`).
public enum ReceiptVerificationMode: String, Hashable, Sendable, CaseIterable {
    /// Locally only: signature, chain and bundle id; Apple is never asked about a receipt.
    case local
    /// Apple's `verifyReceipt` only, as before (the default).
    case apple
    /// Locally, and Apple only when the local check cannot decide: the receipt is not base64,
    /// not a PKCS #7 container, not a receipt inside, or signed with an algorithm not
    /// implemented here. A receipt the local check judged (a bad signature or chain, another
    /// app, an Xcode receipt) is never sent to Apple.
    case localThenApple = "local-then-apple"
}
