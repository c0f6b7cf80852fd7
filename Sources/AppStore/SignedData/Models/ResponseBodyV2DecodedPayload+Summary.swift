extension ResponseBodyV2DecodedPayload {
    /// The outcome of a renewal-date extension for all subscribers (`RENEWAL_EXTENSION` / `SUMMARY`).
    ///
    /// See [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary).
    public struct Summary: Codable, Hashable, Sendable {
        /// `environment` as sent; see ``environment``.
        public var rawEnvironment: String?
        /// [appAppleId](https://developer.apple.com/documentation/appstoreservernotifications/appappleid)
        public var appAppleId: Int64?
        /// [bundleId](https://developer.apple.com/documentation/appstoreserverapi/bundleid)
        public var bundleId: String?
        /// [productId](https://developer.apple.com/documentation/appstoreserverapi/productid)
        public var productId: String?
        /// [requestIdentifier](https://developer.apple.com/documentation/appstoreserverapi/requestidentifier)
        public var requestIdentifier: String?
        /// [storefrontCountryCodes](https://developer.apple.com/documentation/appstoreserverapi/storefrontcountrycodes)
        public var storefrontCountryCodes: [String]?
        /// [succeededCount](https://developer.apple.com/documentation/appstoreserverapi/succeededcount)
        public var succeededCount: Int64?
        /// [failedCount](https://developer.apple.com/documentation/appstoreserverapi/failedcount)
        public var failedCount: Int64?

        /// Creates a summary; every field is optional, as on the wire.
        public init(
            environment: AppStoreEnvironment? = nil, appAppleId: Int64? = nil, bundleId: String? = nil,
            productId: String? = nil, requestIdentifier: String? = nil, storefrontCountryCodes: [String]? = nil,
            succeededCount: Int64? = nil, failedCount: Int64? = nil
        ) {
            self.rawEnvironment = environment?.rawValue
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.productId = productId
            self.requestIdentifier = requestIdentifier
            self.storefrontCountryCodes = storefrontCountryCodes
            self.succeededCount = succeededCount
            self.failedCount = failedCount
        }

        enum CodingKeys: String, CodingKey {
            case rawEnvironment = "environment"
            case appAppleId, bundleId, productId, requestIdentifier, storefrontCountryCodes, succeededCount
            case failedCount
        }

        /// [environment](https://developer.apple.com/documentation/appstoreservernotifications/environment)
        public var environment: AppStoreEnvironment? {
            get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
            set { rawEnvironment = newValue?.rawValue }
        }
    }
}
