/// Which of Apple's two `verifyReceipt` endpoints answered.
public enum VerifyReceiptEnvironment: String, Hashable, Sendable, CaseIterable {
    /// `https://buy.itunes.apple.com/verifyReceipt`: asked first, always.
    case production = "Production"
    /// `https://sandbox.itunes.apple.com/verifyReceipt`: asked when production answers `21007`.
    case sandbox = "Sandbox"
}
