import Foundation

extension AppStoreServerAPIClient {
    /// Where the App Store Server API lives and how patiently to ask it.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// Apple's production deployment, under the domain Apple recommends since May 2026.
        public static let appleProductionBaseURL = "https://api.storekit.apple.com"
        /// Apple's sandbox deployment, likewise.
        public static let appleSandboxBaseURL = "https://api.storekit-sandbox.apple.com"
        /// The domains before May 2026, which Apple still serves: a deployment whose egress
        /// allows only these passes them as `productionBaseURL` and `sandboxBaseURL`.
        public static let appleLegacyProductionBaseURL = "https://api.storekit.itunes.apple.com"
        public static let appleLegacySandboxBaseURL = "https://api.storekit-sandbox.itunes.apple.com"

        /// The production base URL: asked first. May carry a path prefix.
        public var productionBaseURL: String
        /// The sandbox base URL: asked on `4040010` from production. The stub store serves its
        /// sandbox at `{stub}/sandbox`.
        public var sandboxBaseURL: String
        /// The limit on each request, connecting included.
        public var timeout: Duration
        /// How many times one call waits out a `429` and asks again before it fails with a
        /// retryable ``AppStoreServerAPIError/Code/rateLimited``; `0` never waits.
        public var maxRetries: Int
        /// The longest a call waits in-process for its turn: its booking in the call budget,
        /// or a `429`'s `Retry-After`. A longer wait fails the call at once
        /// (``AppStoreServerAPIError/Code/overBudget``, carrying when to come back), so a
        /// worker hands the message to a delay tier rather than hold it.
        public var maxRetryAfter: Duration
        /// Apple's per-endpoint rate limits and how much of them to spend.
        public var rates: AppStoreServerAPIRates
        /// How long to wait after a `429` without a usable `Retry-After`.
        public var defaultRetryAfter: Duration
        /// Whether `4040010` from production sends the same request to the sandbox.
        public var sandboxFallback: Bool
        /// How long each JWT lives: at most 60 minutes.
        public var tokenLifetime: Duration
        /// The most pages a `getComplete...History` call follows before it gives up
        /// (``AppStoreServerAPIError/Code/invalidResponse``), against a server whose pages
        /// never end.
        public var maxPages: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - productionBaseURL: The production base URL; Apple's by default.
        ///   - sandboxBaseURL: The sandbox base URL; Apple's by default.
        ///   - timeout: The limit on each request.
        ///   - maxRetries: How many `429`s one call waits out.
        ///   - maxRetryAfter: The longest `Retry-After` waited out in-process.
        ///   - defaultRetryAfter: The wait after a `429` that names none.
        ///   - sandboxFallback: Whether `4040010` at production asks the sandbox.
        ///   - tokenLifetime: The JWT lifetime.
        ///   - maxPages: The most history pages followed.
        ///   - rates: The rate limits to stay under.
        public init(
            productionBaseURL: String = Configuration.appleProductionBaseURL,
            sandboxBaseURL: String = Configuration.appleSandboxBaseURL,
            timeout: Duration = .seconds(15),
            maxRetries: Int = 2,
            maxRetryAfter: Duration = .seconds(10),
            defaultRetryAfter: Duration = .seconds(1),
            sandboxFallback: Bool = true,
            tokenLifetime: Duration = AppStoreJWT.defaultLifetime,
            maxPages: Int = 1000,
            rates: AppStoreServerAPIRates = .init()
        ) {
            self.rates = rates
            self.productionBaseURL = productionBaseURL
            self.sandboxBaseURL = sandboxBaseURL
            self.timeout = timeout
            self.maxRetries = maxRetries
            self.maxRetryAfter = maxRetryAfter
            self.defaultRetryAfter = defaultRetryAfter
            self.sandboxFallback = sandboxFallback
            self.tokenLifetime = tokenLifetime
            self.maxPages = maxPages
        }

        /// The base URL of `environment`.
        public func baseURL(_ environment: AppStoreServerAPIEnvironment) -> String {
            environment == .production ? productionBaseURL : sandboxBaseURL
        }

        /// The configuration, for logs.
        public var description: String {
            "AppStoreServerAPI(production: \(productionBaseURL), sandbox: \(sandboxBaseURL), timeout: \(timeout), "
                + "maxRetries: \(maxRetries), maxRetryAfter: \(maxRetryAfter), sandboxFallback: \(sandboxFallback), "
                + "tokenLifetime: \(tokenLifetime))"
        }

        /// Throws the first setting that cannot work.
        func validate() throws(AppStoreServerAPIConfigurationError) {
            for (setting, url) in [
                (AppStoreServerAPIConfigurationError.Setting.productionBaseURL, productionBaseURL),
                (.sandboxBaseURL, sandboxBaseURL),
            ] {
                guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                    ["http", "https"].contains(scheme), parsed.host?.isEmpty == false, parsed.query == nil
                else {
                    throw AppStoreServerAPIConfigurationError(
                        setting, "must be an http(s) URL without a query, not '\(url)'")
                }
            }
            guard timeout > .zero else { throw AppStoreServerAPIConfigurationError(.timeout, "must be positive") }
            guard maxRetries >= 0 else {
                throw AppStoreServerAPIConfigurationError(.maxRetries, "must not be negative")
            }
            guard maxRetryAfter >= .zero, defaultRetryAfter >= .zero else {
                throw AppStoreServerAPIConfigurationError(.retryAfter, "must not be negative")
            }
            guard maxPages > 0 else { throw AppStoreServerAPIConfigurationError(.maxPages, "must be positive") }
            _ = try AppStoreJWT.lifetimeSeconds(tokenLifetime)
        }
    }
}
