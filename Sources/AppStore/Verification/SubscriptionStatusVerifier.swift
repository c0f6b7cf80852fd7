import PipelineCore

/// Answers the subscription scheduler's checks (submissions with `subscriptionCheck`).
///
/// With App Store Server API credentials, Apple is asked for the subscription's latest
/// transaction (Get All Subscription Statuses), whose JWS is verified locally like any
/// other; without them, the latest legacy receipt goes to `verifyReceipt`, whose answer
/// lists the renewals since. Everything else passes through unchanged.
struct SubscriptionStatusVerifier: ReceiptVerifier {
    let next: any ReceiptVerifier
    let client: AppStoreServerAPIClient?
    let signedData: SignedDataVerifier?

    func verify(_ submission: Submission) async -> VerificationOutcome {
        guard let original = submission.evidence.checkedSubscription else { return await next.verify(submission) }
        guard let client, let signedData else {
            guard submission.evidence.legacyReceipt != nil else {
                // A StoreKit 2 subscription with no Server API credentials: nobody can be asked.
                return .rejected(reason: "subscription_check_needs_server_api")
            }
            return await next.verify(submission)
        }
        do {
            let response = try await client.getAllSubscriptionStatuses(transactionID: original)
            var transactions: [VerifiedTransaction] = []
            for group in response.body.data ?? [] {
                for last in group.lastTransactions ?? [] where last.originalTransactionID == original {
                    guard let signed = last.signedTransactionInfo,
                        let transaction = try await signedData.verifyTransaction(signed).verifiedTransaction()
                    else { continue }
                    transactions.append(transaction)
                }
            }
            return .valid(environment: response.environment.rawValue, transactions: transactions)
        } catch {
            return ServerConfirmedVerifier.outcome(of: error)
        }
    }
}
