/// Where an app receipt was issued: its field 0, as Apple writes it.
///
/// See [Receipt Fields](https://developer.apple.com/library/archive/releasenotes/General/ValidateAppStoreReceipt/Chapters/ReceiptFields.html).
public enum AppReceiptEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    /// The App Store.
    case production = "Production"
    /// The sandbox and TestFlight.
    case productionSandbox = "ProductionSandbox"
    /// StoreKit testing in Xcode: signed by a certificate Xcode made, never by Apple.
    case xcode = "Xcode"

    /// The name the pipeline gives it, as `verifyReceipt`'s `environment` does: `Production`,
    /// `Sandbox` or `Xcode`.
    public var pipelineName: String {
        switch self {
        case .production: "Production"
        case .productionSandbox: "Sandbox"
        case .xcode: "Xcode"
        }
    }
}
