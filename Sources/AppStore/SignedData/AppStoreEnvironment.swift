/// The App Store server environment that signed data belongs to.
///
/// The raw values are Apple's wire values. See
/// [environment](https://developer.apple.com/documentation/appstoreserverapi/environment).
public enum AppStoreEnvironment: String, Hashable, Sendable, CaseIterable, Codable {
    /// Real purchases, signed by the App Store.
    case production = "Production"
    /// Sandbox and TestFlight purchases, signed by the App Store.
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode: signed locally, never by Apple. ``SignedDataVerifier`` refuses it.
    case xcode = "Xcode"
    /// StoreKit testing on a device: signed locally, never by Apple. ``SignedDataVerifier`` refuses it.
    case localTesting = "LocalTesting"
}
