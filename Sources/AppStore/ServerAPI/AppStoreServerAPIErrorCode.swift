/// An `errorCode` of an App Store Server API error body
/// ([Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)).
///
/// A struct over the raw number rather than a closed enum, so a code Apple adds still arrives
/// intact. The ones the pipeline acts on are named.
public struct AppStoreServerAPIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, such as `4040010`.
    public let rawValue: Int

    /// Creates a code.
    /// - Parameter rawValue: The number.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `4000000` GeneralBadRequestError.
    public static let generalBadRequest = Self(rawValue: 4_000_000)
    /// `4000005` InvalidRequestRevisionError: the `revision` is not one Apple issued.
    public static let invalidRequestRevision = Self(rawValue: 4_000_005)
    /// `4000006` InvalidTransactionIdError.
    public static let invalidTransactionID = Self(rawValue: 4_000_006)
    /// `4040001` AccountNotFoundError.
    public static let accountNotFound = Self(rawValue: 4_040_001)
    /// `4040002` AccountNotFoundRetryableError: try again.
    public static let accountNotFoundRetryable = Self(rawValue: 4_040_002)
    /// `4040003` AppNotFoundError.
    public static let appNotFound = Self(rawValue: 4_040_003)
    /// `4040004` AppNotFoundRetryableError: try again.
    public static let appNotFoundRetryable = Self(rawValue: 4_040_004)
    /// `4040005` OriginalTransactionIdNotFoundError.
    public static let originalTransactionIDNotFound = Self(rawValue: 4_040_005)
    /// `4040006` OriginalTransactionIdNotFoundRetryableError: try again.
    public static let originalTransactionIDNotFoundRetryable = Self(rawValue: 4_040_006)
    /// `4040010` TransactionIdNotFoundError: at production, ask the sandbox.
    public static let transactionIDNotFound = Self(rawValue: 4_040_010)
    /// `4290000` RateLimitExceededError.
    public static let rateLimitExceeded = Self(rawValue: 4_290_000)
    /// `5000000` GeneralInternalError.
    public static let generalInternal = Self(rawValue: 5_000_000)
    /// `5000001` GeneralInternalRetryableError: try again.
    public static let generalInternalRetryable = Self(rawValue: 5_000_001)

    /// The codes Apple documents as worth trying again: `4040002`, `4040004`, `4040006`, `5000001`.
    public static let retryable: Set<Self> = [
        .accountNotFoundRetryable, .appNotFoundRetryable, .originalTransactionIDNotFoundRetryable,
        .generalInternalRetryable,
    ]

    /// Whether Apple documents this code as worth trying again.
    public var isRetryable: Bool { Self.retryable.contains(self) }

    /// The number.
    public var description: String { String(rawValue) }
}
