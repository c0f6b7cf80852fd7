/// The `status` of a `verifyReceipt` answer, and what it means for the pipeline
/// ([status](https://developer.apple.com/documentation/appstorereceipts/status)).
///
/// A struct over the raw code, so a status Apple adds later still has a value (and is
/// classified as transient: retrying a receipt too often is cheaper than refusing a real one).
///
/// ```swift
/// VerifyReceiptStatus(rawValue: 21007).action(isRetryable: nil)  // .trySandbox
/// ```
public struct VerifyReceiptStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as Apple sends it.
    public let rawValue: Int

    /// Wraps a code.
    /// - Parameter rawValue: The `status` field of the answer.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `0`: the receipt is valid.
    public static let valid = Self(rawValue: 0)
    /// `21000`: the request was not a `POST` (older documentation: the JSON could not be read).
    public static let badRequest = Self(rawValue: 21000)
    /// `21002`: `receipt-data` was malformed, or the service had a temporary issue. Try again.
    public static let malformedOrTemporary = Self(rawValue: 21002)
    /// `21003`: the receipt could not be authenticated.
    public static let notAuthenticated = Self(rawValue: 21003)
    /// `21004`: the shared secret does not match the one on file for the account.
    public static let sharedSecretMismatch = Self(rawValue: 21004)
    /// `21005`: the receipt server was temporarily unable to provide the receipt. Try again.
    public static let serverUnavailable = Self(rawValue: 21005)
    /// `21006`: valid, but the subscription expired; only for iOS 6-style transaction receipts.
    public static let expiredTransactionReceipt = Self(rawValue: 21006)
    /// `21007`: a sandbox receipt sent to production: ask the sandbox.
    public static let sandboxReceipt = Self(rawValue: 21007)
    /// `21008`: a production receipt sent to the sandbox: ask production.
    public static let productionReceipt = Self(rawValue: 21008)
    /// `21009`: internal data access error. Try again later.
    public static let internalDataAccessError = Self(rawValue: 21009)
    /// `21010`: the user account cannot be found or was deleted; treat as never purchased.
    public static let accountNotFound = Self(rawValue: 21010)
    /// `21100...21199`: internal data access errors; `is-retryable` says whether to try again.
    public static let internalErrors = 21100...21199

    /// What the pipeline does about an answer with this status.
    public enum Action: Hashable, Sendable {
        /// Status `0`: check the bundle id, then credit the transactions.
        case valid
        /// Ask the sandbox endpoint with the same receipt (`21007`).
        case trySandbox
        /// Ask the production endpoint with the same receipt (`21008`).
        case tryProduction
        /// The receipt will never verify: reject it with `reason`.
        case rejected(reason: String)
        /// It may verify later: retry with a delay.
        case transient(reason: String)
    }

    /// The machine-readable reason for this status: `apple_status_21003`.
    public var reason: String { "apple_status_\(rawValue)" }

    /// Classifies the status.
    ///
    /// - `0` is valid; `21007` and `21008` send the receipt to the other endpoint.
    /// - `21003`, `21004`, `21010` are permanent, as Apple documents them; so is `21006`,
    ///   which answers only iOS 6-style transaction receipts, never app receipts.
    /// - `21002`, `21005`, `21009` are transient: Apple says "try again".
    /// - `21100...21199` follow `is-retryable`: `false` is permanent, `true` or absent transient.
    /// - Anything else (`21000`, `21001`, codes Apple adds) is transient, with its code in the
    ///   reason, so operators see it in the dead-letter queue instead of players losing purchases.
    /// - Parameter isRetryable: The answer's `is-retryable`, if it had one.
    public func action(isRetryable: Bool?) -> Action {
        switch rawValue {
        case Self.valid.rawValue:
            return .valid
        case Self.sandboxReceipt.rawValue:
            return .trySandbox
        case Self.productionReceipt.rawValue:
            return .tryProduction
        case Self.notAuthenticated.rawValue, Self.sharedSecretMismatch.rawValue, Self.accountNotFound.rawValue,
            Self.expiredTransactionReceipt.rawValue:
            return .rejected(reason: reason)
        case Self.internalErrors where isRetryable == false:
            return .rejected(reason: reason)
        default:
            return .transient(reason: reason)
        }
    }

    /// The code, such as `21007`.
    public var description: String { String(rawValue) }
}
