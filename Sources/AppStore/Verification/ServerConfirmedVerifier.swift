import PipelineCore

/// Confirms a locally verified StoreKit 2 transaction with the App Store Server API
/// (`GET /inApps/v1/transactions/{id}`), when credentials are configured: the app's copy
/// proves a purchase happened, Apple's current copy says whether it still stands (a
/// refund since, for instance). Everything else passes through unchanged.
///
/// A confirmed transaction without an `appAccountToken` (an offer code redeemed in the App
/// Store, a purchase made outside the app) owes Apple the token of the account it is
/// credited to: its ``VerifiedTransaction/confirmation`` says so
/// (``AppAccountTokenOwed``), and Apple's plug-in tells Apple (``AppleStore/confirm(_:transactionID:context:)``).
struct ServerConfirmedVerifier: ReceiptVerifier {
    let local: any ReceiptVerifier
    let client: AppStoreServerAPIClient
    let signedData: SignedDataVerifier

    func verify(_ submission: Submission) async -> VerificationOutcome {
        let outcome = await local.verify(submission)
        guard submission.evidence.signedTransaction != nil, case .valid(let environment, let transactions) = outcome,
            let transaction = transactions.first
        else { return outcome }
        do {
            let response = try await client.getTransactionInfo(transactionID: transaction.transactionID)
            guard let signed = response.body.signedTransactionInfo else {
                return .transient(reason: "server_api_empty_answer")
            }
            guard var confirmed = try await signedData.verifyTransaction(signed).verifiedTransaction() else {
                return .rejected(reason: "server_api_incomplete_transaction")
            }
            guard confirmed.transactionID == transaction.transactionID, confirmed.productID == transaction.productID
            else { return .rejected(reason: "server_api_mismatch") }
            if confirmed.appAccountToken == nil {
                confirmed.confirmation =
                    AppAccountTokenOwed(
                        originalTransactionID: confirmed.originalTransactionID, environment: response.environment
                    )
                    .json
            }
            return .valid(environment: environment, transactions: [confirmed])
        } catch {
            return ServerConfirmedVerifier.outcome(of: error)
        }
    }

    /// What a failed exchange with the Server API means for the pipeline: Apple's own
    /// classification, a rejection for a JWS that does not verify, else worth retrying.
    static func outcome(of error: any Error) -> VerificationOutcome {
        switch error {
        case let error as AppStoreServerAPIError: error.outcome
        case let error as VerificationError: .rejected(reason: "server_api_jws_\(error.reason.rawValue)")
        default: .transient(reason: "server_api: \(error)")
        }
    }
}
