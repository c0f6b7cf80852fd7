/// The answer of Get All Subscription Statuses
/// ([StatusResponse](https://developer.apple.com/documentation/appstoreserverapi/statusresponse)).
public struct SubscriptionStatusesResponse: Codable, Hashable, Sendable {
    /// `environment`: `Production`, `Sandbox`, ...; the raw value.
    public var environment: String?
    /// `bundleId`: the app's bundle id.
    public var bundleID: String?
    /// `appAppleId`: the app's id in the App Store; absent in the sandbox.
    public var appAppleID: Int64?
    /// `data`: one entry per subscription group.
    public var data: [SubscriptionGroup]?

    /// Creates a response.
    public init(
        environment: String? = nil, bundleID: String? = nil, appAppleID: Int64? = nil,
        data: [SubscriptionGroup]? = nil
    ) {
        self.environment = environment
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case environment
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case data
    }

    /// The subscriptions of one group
    /// ([SubscriptionGroupIdentifierItem](https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifieritem)).
    public struct SubscriptionGroup: Codable, Hashable, Sendable {
        /// `subscriptionGroupIdentifier`.
        public var subscriptionGroupIdentifier: String?
        /// `lastTransactions`: the latest transaction of each subscription in the group.
        public var lastTransactions: [LastTransaction]?

        /// Creates a group.
        public init(subscriptionGroupIdentifier: String?, lastTransactions: [LastTransaction]?) {
            self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
            self.lastTransactions = lastTransactions
        }
    }

    /// The latest transaction of one subscription
    /// ([lastTransactionsItem](https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem)).
    public struct LastTransaction: Codable, Hashable, Sendable {
        /// `status` as sent (see ``Status``).
        public var rawStatus: Int?
        /// `originalTransactionId`: the subscription's first purchase.
        public var originalTransactionID: String?
        /// `signedTransactionInfo`: the latest transaction as JWS.
        public var signedTransactionInfo: String?
        /// `signedRenewalInfo`: the renewal information as JWS.
        public var signedRenewalInfo: String?

        /// The subscription's state
        /// ([status](https://developer.apple.com/documentation/appstoreserverapi/status)).
        public enum Status: Int, Hashable, Sendable {
            /// `1`: active.
            case active = 1
            /// `2`: expired.
            case expired = 2
            /// `3`: Apple is retrying a failed renewal.
            case billingRetry = 3
            /// `4`: in the billing grace period; still entitled.
            case billingGracePeriod = 4
            /// `5`: revoked (refunded or Family Sharing ended).
            case revoked = 5
        }

        /// `status`, typed; `nil` for a value this code does not know.
        public var status: Status? { rawStatus.flatMap(Status.init(rawValue:)) }

        /// Creates an item.
        public init(
            status: Int?, originalTransactionID: String?, signedTransactionInfo: String?, signedRenewalInfo: String?
        ) {
            self.rawStatus = status
            self.originalTransactionID = originalTransactionID
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
        }

        enum CodingKeys: String, CodingKey {
            case rawStatus = "status"
            case originalTransactionID = "originalTransactionId"
            case signedTransactionInfo, signedRenewalInfo
        }
    }
}
