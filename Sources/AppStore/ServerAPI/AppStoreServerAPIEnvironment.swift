/// Which of the App Store Server API's two deployments answered.
public enum AppStoreServerAPIEnvironment: String, Hashable, Sendable, CaseIterable {
    /// `https://api.storekit.apple.com`: asked first, always.
    case production = "Production"
    /// `https://api.storekit-sandbox.apple.com`: asked when production answers
    /// `4040010` (`TransactionIdNotFoundError`).
    case sandbox = "Sandbox"
}
