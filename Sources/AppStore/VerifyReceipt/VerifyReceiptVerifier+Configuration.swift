import PipelineCore

extension VerifyReceiptVerifier {
    /// Where Apple's `verifyReceipt` lives and what to send it.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// Apple's production endpoint.
        public static let appleProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
        /// Apple's sandbox endpoint.
        public static let appleSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"

        /// The production endpoint's full URL (`IAP_VERIFY_URL`): asked first.
        public var productionURL: String
        /// The sandbox endpoint's full URL (`IAP_VERIFY_SANDBOX_URL`): asked on `21007`.
        public var sandboxURL: String
        /// The app's shared secret, sent as `password` (`IAP_SHARED_SECRET`); required by
        /// Apple for receipts with auto-renewable subscriptions.
        public var sharedSecret: String?
        /// The app's bundle id (`IAP_BUNDLE_ID`): a receipt of another app is rejected.
        public var bundleID: String
        /// The other apps of the pipeline (`IAP_APPS`): a receipt of one of theirs is
        /// refused naming it instead of `bundle_mismatch`.
        public var otherApps = OtherApps.none
        /// Sent as `exclude-old-transactions`: only the latest renewal of each subscription
        /// in `latest_receipt_info`.
        public var excludeOldTransactions: Bool
        /// The limit on each request, connecting included.
        public var requestTimeout: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - bundleID: The app's bundle id.
        ///   - productionURL: The production endpoint; Apple's by default.
        ///   - sandboxURL: The sandbox endpoint; Apple's by default.
        ///   - sharedSecret: The app's shared secret, or `nil` to send none.
        ///   - excludeOldTransactions: Whether to ask for the latest renewals only.
        ///   - requestTimeout: The limit on each request.
        public init(
            bundleID: String,
            productionURL: String = Configuration.appleProductionURL,
            sandboxURL: String = Configuration.appleSandboxURL,
            sharedSecret: String? = nil,
            excludeOldTransactions: Bool = false,
            requestTimeout: Duration = .seconds(15)
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.sharedSecret = sharedSecret
            self.bundleID = bundleID
            self.excludeOldTransactions = excludeOldTransactions
            self.requestTimeout = requestTimeout
        }

        /// The URL of `environment`'s endpoint.
        public func url(_ environment: VerifyReceiptEnvironment) -> String {
            environment == .production ? productionURL : sandboxURL
        }

        /// Everything but the shared secret, which is only said to be set, so a configuration
        /// can be logged.
        public var description: String {
            "verifyReceipt(production: \(productionURL), sandbox: \(sandboxURL), bundle: \(bundleID), "
                + "sharedSecret: \(sharedSecret == nil ? "none" : "set"), "
                + "excludeOldTransactions: \(excludeOldTransactions), timeout: \(requestTimeout))"
        }
    }
}

/// A ``VerifyReceiptVerifier/Configuration`` that cannot work; thrown at start.
public struct VerifyReceiptConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public var message: String

    /// Creates an error.
    /// - Parameter message: What is wrong, naming the setting.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
