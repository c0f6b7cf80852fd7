import Foundation

/// Where a monthly subscription with a 12-month commitment stands (App Store Server API 1.21):
/// `commitmentInfo` of a signed transaction.
/// See [TransactionCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/transactioncommitmentinfo).
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which of the commitment's billing periods this transaction pays (1...12).
    public var billingPeriodNumber: Int?
    /// When the commitment ends.
    public var commitmentExpiresDate: Date?
    /// The price after the commitment, in milliunits.
    public var commitmentPrice: Int64?
    public var totalBillingPeriods: Int?

    public init(
        billingPeriodNumber: Int? = nil, commitmentExpiresDate: Date? = nil, commitmentPrice: Int64? = nil,
        totalBillingPeriods: Int? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
        self.totalBillingPeriods = totalBillingPeriods
    }
}

/// What happens when a commitment ends: `commitmentInfo` of signed renewal info.
/// See [RenewalCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/renewalcommitmentinfo).
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    public var commitmentAutoRenewProductId: String?
    /// `0` off, `1` on, as sent.
    public var commitmentAutoRenewStatus: Int?
    /// `MONTHLY`, ... as sent.
    public var commitmentRenewalBillingPlanType: String?
    public var commitmentRenewalDate: Date?
    /// In milliunits.
    public var commitmentRenewalPrice: Int64?

    public init(
        commitmentAutoRenewProductId: String? = nil, commitmentAutoRenewStatus: Int? = nil,
        commitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Date? = nil,
        commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
        self.commitmentAutoRenewStatus = commitmentAutoRenewStatus
        self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }
}

extension ResponseBodyV2DecodedPayload {
    /// The app a notification about the app itself names (`RESCIND_CONSENT`, notifications
    /// 2.19), in place of `data`.
    /// See [appData](https://developer.apple.com/documentation/appstoreservernotifications/appdata).
    public struct AppData: Codable, Hashable, Sendable {
        public var appAppleId: Int64?
        public var bundleId: String?
        /// `environment` as sent.
        public var rawEnvironment: String?
        /// The app transaction, a JWS of its own (not verified here: nothing is credited from it).
        public var signedAppTransactionInfo: String?

        public init(
            appAppleId: Int64? = nil, bundleId: String? = nil, environment: AppStoreEnvironment? = nil,
            signedAppTransactionInfo: String? = nil
        ) {
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.rawEnvironment = environment?.rawValue
            self.signedAppTransactionInfo = signedAppTransactionInfo
        }

        enum CodingKeys: String, CodingKey {
            case appAppleId, bundleId, signedAppTransactionInfo
            case rawEnvironment = "environment"
        }
    }
}
