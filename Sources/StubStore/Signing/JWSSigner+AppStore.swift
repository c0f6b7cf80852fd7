import AppStore

extension JWSSigner {
    /// Signs a transaction, as the App Store signs `signedTransaction` / `signedTransactionInfo`.
    /// - Parameter payload: The transaction.
    /// - Returns: The compact JWS.
    public func signTransaction(_ payload: JWSTransactionDecodedPayload) -> String {
        signModel(payload)
    }

    /// Signs renewal info, as the App Store signs `signedRenewalInfo`.
    /// - Parameter payload: The renewal info.
    /// - Returns: The compact JWS.
    public func signRenewalInfo(_ payload: JWSRenewalInfoDecodedPayload) -> String {
        signModel(payload)
    }

    /// Signs a notification, as the App Store signs `signedPayload`. Sign its transaction and
    /// renewal info first and put them in `data`.
    /// - Parameter payload: The notification.
    /// - Returns: The compact JWS.
    public func signNotification(_ payload: ResponseBodyV2DecodedPayload) -> String {
        signModel(payload)
    }

    private func signModel(_ payload: some Encodable) -> String {
        do {
            return try sign(payload)
        } catch {
            // The models hold strings, integers, booleans and dates, which always encode, and
            // P-256 signing fails only if the system's randomness does.
            preconditionFailure("signing an App Store model failed: \(error)")
        }
    }
}
