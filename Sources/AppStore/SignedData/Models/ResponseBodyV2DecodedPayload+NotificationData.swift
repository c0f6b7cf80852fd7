extension ResponseBodyV2DecodedPayload {
    /// The app a notification is for, and its signed transaction and renewal info.
    ///
    /// Apple calls this type `data`; it is renamed so it cannot be confused with `Foundation.Data`.
    /// See [data](https://developer.apple.com/documentation/appstoreservernotifications/data).
    public struct NotificationData: Codable, Hashable, Sendable {
        /// `environment` as sent; see ``environment``.
        public var rawEnvironment: String?
        /// [appAppleId](https://developer.apple.com/documentation/appstoreservernotifications/appappleid)
        public var appAppleId: Int64?
        /// [bundleId](https://developer.apple.com/documentation/appstoreserverapi/bundleid)
        public var bundleId: String?
        /// [bundleVersion](https://developer.apple.com/documentation/appstoreservernotifications/bundleversion)
        public var bundleVersion: String?
        /// [JWSTransaction](https://developer.apple.com/documentation/appstoreserverapi/jwstransaction):
        /// a JWS of its own, verified separately.
        public var signedTransactionInfo: String?
        /// [JWSRenewalInfo](https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfo):
        /// a JWS of its own, verified separately.
        public var signedRenewalInfo: String?
        /// `status` as sent; see ``status``.
        public var rawStatus: Int?
        /// [consumptionRequestReason](https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason)
        public var rawConsumptionRequestReason: String?

        /// Creates the data; every field is optional, as on the wire.
        public init(
            environment: AppStoreEnvironment? = nil, appAppleId: Int64? = nil, bundleId: String? = nil,
            bundleVersion: String? = nil, signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil,
            status: Status? = nil, rawConsumptionRequestReason: String? = nil
        ) {
            self.rawEnvironment = environment?.rawValue
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.bundleVersion = bundleVersion
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.rawStatus = status?.rawValue
            self.rawConsumptionRequestReason = rawConsumptionRequestReason
        }

        enum CodingKeys: String, CodingKey {
            case rawEnvironment = "environment"
            case appAppleId, bundleId, bundleVersion, signedTransactionInfo, signedRenewalInfo
            case rawStatus = "status"
            case rawConsumptionRequestReason = "consumptionRequestReason"
        }

        /// [environment](https://developer.apple.com/documentation/appstoreservernotifications/environment)
        public var environment: AppStoreEnvironment? {
            get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
            set { rawEnvironment = newValue?.rawValue }
        }

        /// [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
        public var status: Status? {
            get { rawStatus.flatMap(Status.init(rawValue:)) }
            set { rawStatus = newValue?.rawValue }
        }

        /// [status](https://developer.apple.com/documentation/appstoreservernotifications/status) of an
        /// auto-renewable subscription as of the notification's `signedDate`.
        public enum Status: Int, Hashable, Sendable, CaseIterable {
            case active = 1
            case expired = 2
            case billingRetry = 3
            case billingGracePeriod = 4
            case revoked = 5
        }
    }
}
