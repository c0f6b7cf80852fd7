import Foundation

/// Verifies and decodes data the App Store signs: StoreKit 2 transactions, renewal info, and
/// App Store Server Notifications V2.
///
/// Each is a compact JWS signed with ES256 by a leaf certificate in its `x5c` header. The
/// verifier checks, in order: the JWS shape, the certificate chain leaf ← intermediate ← one of
/// the configured roots with Apple's OIDs, valid at the payload's `signedDate` (the current time
/// when it has none, as Apple's library does), the signature, then that the data is for this app
/// and environment. The root in `x5c` is never trusted: only the configured roots are.
///
/// ```swift
/// let verifier = try SignedDataVerifier(bundleID: "com.example.game", appAppleID: 1_234_567_890,
///                                       environment: .production)
/// do {
///     let transaction = try await verifier.verifyTransaction(signedTransaction)
///     credit(transaction.productId, transaction.transactionId)
/// } catch {
///     reject(error.reason)  // .invalidChain, .wrongApp, ...
/// }
/// ```
///
/// Verification is offline: no revocation (OCSP) check, so nothing here is transient.
public struct SignedDataVerifier: Sendable {
    /// The bundle id that data must be for.
    public let bundleID: String
    /// The app's Apple id; notifications must carry it in production.
    public let appAppleID: Int64?
    /// The environment that data must be from.
    public let environment: AppStoreEnvironment
    /// The signature and chain checks, with their cache of validated chains; the intake
    /// shares it to refuse notifications Apple did not sign.
    public let authenticator: SignedDataAuthenticator

    /// Creates a verifier that trusts the given roots.
    /// - Parameters:
    ///   - rootCertificates: The trusted roots, DER; in production ``appleRootCAG3``, in tests a test CA.
    ///   - bundleID: The app's bundle id.
    ///   - appAppleID: The app's Apple id (App Store Connect → App Information); required in production.
    ///   - environment: `.production` or `.sandbox`.
    ///   - now: The clock, read only for data without a `signedDate`.
    /// - Throws: ``SignedDataConfigurationError`` for no or malformed roots, an empty bundle id,
    ///   production without `appAppleID`, or an environment Apple does not sign.
    public init(
        rootCertificates: [[UInt8]], bundleID: String, appAppleID: Int64?, environment: AppStoreEnvironment,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SignedDataConfigurationError) {
        guard !bundleID.isEmpty else { throw SignedDataConfigurationError(.emptyBundleID, "bundleID is empty") }
        switch environment {
        case .production:
            guard appAppleID != nil else {
                throw SignedDataConfigurationError(.missingAppAppleID, "production needs the app's Apple id")
            }
        case .sandbox:
            break
        case .xcode, .localTesting:
            throw SignedDataConfigurationError(
                .unsupportedEnvironment, "\(environment.rawValue) data is not signed by the App Store")
        }
        self.authenticator = try SignedDataAuthenticator(rootCertificates: rootCertificates, now: now)
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
    }

    /// Creates a verifier that trusts Apple Root CA - G3 (``appleRootCAG3``), as production should.
    /// - Parameters:
    ///   - bundleID: The app's bundle id.
    ///   - appAppleID: The app's Apple id; required in production.
    ///   - environment: `.production` or `.sandbox`.
    ///   - now: The clock, read only for data without a `signedDate`.
    /// - Throws: ``SignedDataConfigurationError`` as the other initializer.
    public init(
        bundleID: String, appAppleID: Int64?, environment: AppStoreEnvironment,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SignedDataConfigurationError) {
        try self.init(
            rootCertificates: [Self.appleRootCAG3], bundleID: bundleID, appAppleID: appAppleID,
            environment: environment, now: now)
    }

    // MARK: Verifying

    /// Verifies a signed transaction (from the app, the App Store Server API or a notification).
    /// - Parameter signedTransaction: The JWS.
    /// - Returns: The decoded transaction, for this app (`bundleId`) and environment.
    /// - Throws: ``VerificationError``.
    public func verifyTransaction(
        _ signedTransaction: String
    ) async throws(VerificationError) -> JWSTransactionDecodedPayload {
        let transaction = try await verified(signedTransaction, as: JWSTransactionDecodedPayload.self)
        guard transaction.bundleId == bundleID else {
            throw .wrongApp("transaction is for bundle '\(transaction.bundleId ?? "")', not '\(bundleID)'")
        }
        try checkEnvironment(transaction.rawEnvironment)
        return transaction
    }

    /// Verifies signed renewal info.
    ///
    /// Renewal info names no app, so only its environment is checked; it is for this app when the
    /// notification or response it came in is.
    /// - Parameter signedRenewalInfo: The JWS.
    /// - Returns: The decoded renewal info, for this environment.
    /// - Throws: ``VerificationError``.
    public func verifyRenewalInfo(
        _ signedRenewalInfo: String
    ) async throws(VerificationError) -> JWSRenewalInfoDecodedPayload {
        let renewalInfo = try await verified(signedRenewalInfo, as: JWSRenewalInfoDecodedPayload.self)
        try checkEnvironment(renewalInfo.rawEnvironment)
        return renewalInfo
    }

    /// Verifies an App Store Server Notification V2.
    ///
    /// The app and environment come from `data`, else `summary`. The embedded
    /// `signedTransactionInfo` and `signedRenewalInfo` are not verified here: pass them to
    /// ``verifyTransaction(_:)`` and ``verifyRenewalInfo(_:)``.
    /// - Parameter signedPayload: The `signedPayload` Apple posted.
    /// - Returns: The decoded notification, for this app (bundle id, and Apple id in production)
    ///   and environment.
    /// - Throws: ``VerificationError``.
    public func verifyNotification(
        _ signedPayload: String
    ) async throws(VerificationError) -> ResponseBodyV2DecodedPayload {
        let notification = try await verified(signedPayload, as: ResponseBodyV2DecodedPayload.self)
        let bundleId: String?
        let appAppleId: Int64?
        let rawEnvironment: String?
        if let data = notification.data {
            (bundleId, appAppleId, rawEnvironment) = (data.bundleId, data.appAppleId, data.rawEnvironment)
        } else if let summary = notification.summary {
            (bundleId, appAppleId, rawEnvironment) = (summary.bundleId, summary.appAppleId, summary.rawEnvironment)
        } else if let app = notification.appData {
            // A notification about the app itself (RESCIND_CONSENT) names it here.
            (bundleId, appAppleId, rawEnvironment) = (app.bundleId, app.appAppleId, app.rawEnvironment)
        } else {
            (bundleId, appAppleId, rawEnvironment) = (nil, nil, nil)
        }
        guard bundleId == bundleID else {
            throw .wrongApp("notification is for bundle '\(bundleId ?? "")', not '\(bundleID)'")
        }
        if environment == .production, appAppleId != appAppleID {
            throw .wrongApp("notification is for app \(appAppleId.map(String.init) ?? "none"), not this app")
        }
        try checkEnvironment(rawEnvironment)
        return notification
    }

    /// Validates a certificate chain as ``verifyTransaction(_:)`` does, without a JWS.
    /// - Parameters:
    ///   - leaf: The signing certificate, DER.
    ///   - intermediate: Its issuer, DER.
    ///   - validationTime: When every certificate, the root included, must have been valid.
    /// - Throws: ``VerificationError/Reason/invalidChain`` if a certificate is not DER, a
    ///   signature or Apple's OID is missing or wrong, the chain ends at no configured root, or a
    ///   certificate is not valid at `validationTime`.
    public func validateChain(leaf: [UInt8], intermediate: [UInt8], at validationTime: Date)
        async throws(VerificationError)
    {
        try await authenticator.validateChain(leaf: leaf, intermediate: intermediate, at: validationTime)
    }

    // MARK: Steps

    private func verified<Payload: SignedPayload>(
        _ token: String, as type: Payload.Type
    ) async throws(VerificationError) -> Payload {
        try await authenticator.authenticated(token, as: type)
    }

    private func checkEnvironment(_ rawEnvironment: String?) throws(VerificationError) {
        guard rawEnvironment == environment.rawValue else {
            throw .wrongEnvironment("data is from '\(rawEnvironment ?? "")', not \(environment.rawValue)")
        }
    }
}
