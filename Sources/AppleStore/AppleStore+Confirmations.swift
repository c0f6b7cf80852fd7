import AppStore
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// What Apple is owed after a credit: the account of a StoreKit 2 purchase credited without
/// an `appAccountToken` (Set App Account Token), so that its later transactions and
/// notifications name the account. The fulfiller leaves an ``AppAccountTokenOwed`` in
/// `store_confirmations` (store `apple`); this tells Apple the token of the account its
/// transaction credited (``OrderRepository``'s, made if the account has none).
///
/// A call Apple may recover from (`429`, `5xx`, no answer) is tried again; one it refuses (a
/// family-shared purchase, `4000185`; an id that is not an original one, `4000187`) is left
/// failed for an operator.
extension AppleStore {
    /// Only with the App Store Server API's credentials: without them a fulfiller leaves the
    /// rows to one that has them.
    public var runsInFulfiller: Bool { talksToStore }

    public func confirm(_ confirmation: String, transactionID: String, context: StoreContext) async
        -> ConfirmationOutcome
    {
        guard let owed = AppAccountTokenOwed(json: confirmation) else {
            return .failed(reason: "apple_confirmation_unreadable")
        }
        let api: AppStoreServerAPIClient
        let owner: (accountID: String, token: String)?
        do {
            guard
                let client = try setup.serverAPIClient(
                    client: context.httpClient, budgets: context.budgets, logger: context.logger),
                let database = context.database
            else { return .transient(reason: "apple_server_api_not_configured") }
            api = client
            owner = try await OrderRepository(database).accountToken(creditedFor: transactionID, now: Date())
        } catch {
            return .transient(reason: "apple_token_lookup_failed: \(error)")
        }
        guard let owner, let uuid = UUID(uuidString: owner.token) else {
            return .failed(reason: "no account or token to tell Apple")
        }
        do throws(AppStoreServerAPIError) {
            try await api.setAppAccountToken(
                originalTransactionID: owed.originalTransactionID, token: uuid, in: owed.environment)
            return .done
        } catch {
            return error.isRetryable
                ? .transient(reason: "\(error)", retryAfter: error.retryAfter) : .failed(reason: "\(error)")
        }
    }
}
