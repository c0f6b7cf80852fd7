import Logging
import PipelineCore

/// Verifies StoreKit 2 submissions locally: a signed transaction, or an App Store Server
/// Notification V2 with its embedded transaction and renewal info.
///
/// Every failure is permanent, reported as `.rejected(reason: "jws_<reason>")` with the
/// ``VerificationError/Reason`` raw value, e.g. `jws_invalid_chain`, `jws_wrong_app`. Legacy
/// `receipt_data` is not its business: put it behind a ``RoutingVerifier``.
///
/// ```swift
/// let storeKit = StoreKitVerifier(verifier: try SignedDataVerifier(
///     bundleID: "com.example.game", appAppleID: 1_234_567_890, environment: .production))
/// switch await storeKit.verify(submission) {
/// case .valid(let environment, let transactions): ...
/// case .notification(let notification): ...
/// case .rejected(let reason): ...          // "jws_invalid_signature", ...
/// case .transient: break                   // never: verification is offline
/// }
/// ```
public struct StoreKitVerifier: ReceiptVerifier {
    /// The reason a submission with only `receipt_data` is rejected.
    public static let receiptDataUnsupported = "unsupported: receipt_data needs verifyReceipt"
    /// The reason a submission with no signed data at all is rejected.
    public static let missingSignedData = "missing_signed_data"
    /// The reason a verified transaction without a transaction or product id is rejected.
    public static let incompleteTransaction = "jws_incomplete_transaction"
    /// The reason a verified notification without a UUID or type is rejected.
    public static let incompleteNotification = "jws_incomplete_notification"

    /// The signed-data verifier: roots, bundle id, environment.
    public let verifier: SignedDataVerifier
    private let logger: Logger

    /// Creates a verifier.
    /// - Parameters:
    ///   - verifier: Checks the JWS and whom they are for.
    ///   - logger: Where rejections go, at debug level; signed data is never logged.
    public init(verifier: SignedDataVerifier, logger: Logger = Logger(label: "AppStore.storeKit")) {
        self.verifier = verifier
        self.logger = logger
    }

    /// Verifies `submission`'s `signedPayload`, else its `signedTransaction`.
    /// - Parameter submission: As the intake committed it.
    /// - Returns: `.valid` with the one transaction, `.notification`, or `.rejected`; never `.transient`.
    public func verify(_ submission: Submission) async -> VerificationOutcome {
        var logger = self.logger
        logger[metadataKey: "receipt_id"] = "\(submission.id)"
        let outcome: VerificationOutcome
        if let signedPayload = submission.evidence.signedPayload, !signedPayload.isEmpty {
            outcome = await verifyNotification(signedPayload, logger: logger)
        } else if let signedTransaction = submission.evidence.signedTransaction, !signedTransaction.isEmpty {
            outcome = await verifyTransaction(signedTransaction, logger: logger)
        } else if let receiptData = submission.evidence.legacyReceipt, !receiptData.isEmpty {
            outcome = .rejected(reason: Self.receiptDataUnsupported)
        } else {
            outcome = .rejected(reason: Self.missingSignedData)
        }
        switch outcome {
        case .valid(let environment, _):
            logger.debug("signed transaction valid", metadata: ["environment": "\(environment)"])
        case .notification(let notification):
            logger.debug(
                "notification valid",
                metadata: ["type": "\(notification.rawType)", "notification_uuid": "\(notification.notificationUUID)"])
        case .rejected(let reason):
            logger.debug("signed data rejected", metadata: ["reason": "\(reason)"])
        case .transient, .deferred:
            break  // never: verification is offline
        }
        return outcome
    }

    // MARK: Kinds of signed data

    private func verifyTransaction(_ signedTransaction: String, logger: Logger) async -> VerificationOutcome {
        let payload: JWSTransactionDecodedPayload
        do {
            payload = try await verifier.verifyTransaction(signedTransaction)
        } catch {
            return Self.rejection(error, what: "signedTransaction", logger: logger)
        }
        guard let transaction = payload.verifiedTransaction() else {
            return .rejected(reason: Self.incompleteTransaction)
        }
        return .valid(environment: payload.rawEnvironment ?? verifier.environment.rawValue, transactions: [transaction])
    }

    private func verifyNotification(_ signedPayload: String, logger: Logger) async -> VerificationOutcome {
        let payload: ResponseBodyV2DecodedPayload
        do {
            payload = try await verifier.verifyNotification(signedPayload)
        } catch {
            return Self.rejection(error, what: "signedPayload", logger: logger)
        }
        guard let uuid = payload.notificationUUID, !uuid.isEmpty, let type = payload.rawNotificationType,
            !type.isEmpty
        else {
            return .rejected(reason: Self.incompleteNotification)
        }
        // The embedded JWS are signed on their own, so they are verified on their own.
        var transaction: VerifiedTransaction?
        if let signedTransactionInfo = payload.data?.signedTransactionInfo {
            do {
                let decoded = try await verifier.verifyTransaction(signedTransactionInfo)
                guard let verified = decoded.verifiedTransaction() else {
                    return .rejected(reason: Self.incompleteTransaction)
                }
                transaction = verified
            } catch {
                return Self.rejection(error, what: "signedTransactionInfo", logger: logger)
            }
        }
        var renewalInfo: JWSRenewalInfoDecodedPayload?
        if let signedRenewalInfo = payload.data?.signedRenewalInfo {
            do {
                renewalInfo = try await verifier.verifyRenewalInfo(signedRenewalInfo)
            } catch {
                return Self.rejection(error, what: "signedRenewalInfo", logger: logger)
            }
        }
        return .notification(
            StoreNotification(
                notificationUUID: uuid,
                type: type,
                subtype: payload.rawSubtype,
                environment: payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment
                    ?? payload.appData?.rawEnvironment,
                signedDate: payload.signedDate,
                transaction: transaction,
                gracePeriodExpiresDate: renewalInfo?.gracePeriodExpiresDate
            ))
    }

    private static func rejection(_ error: VerificationError, what: String, logger: Logger) -> VerificationOutcome {
        logger.debug("\(what) did not verify", metadata: ["error": "\(error)"])
        return .rejected(reason: "jws_\(error.reason.rawValue)")
    }
}
