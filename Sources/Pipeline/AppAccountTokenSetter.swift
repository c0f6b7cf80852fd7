import AppStore
import Foundation
import Logging
import PipelineCore
import ServiceLifecycle
import Store

/// Tells Apple the account of each StoreKit 2 purchase credited without an `appAccountToken`
/// (Set App Account Token), so that its later transactions and notifications name the
/// account: the rows ``AppAccountTokenOwed`` left in `store_confirmations` (store `apple`),
/// each with the token of the account its transaction credited (``OrderStore``'s, made if
/// the account has none).
///
/// A call Apple may recover from (`429`, `5xx`, no answer) is tried again with backoff; one
/// it refuses (a family-shared purchase, `4000185`; an id that is not an original one,
/// `4000187`) is left failed for an operator. Any number of fulfillers may run it: a claim
/// leases its rows.
public struct AppAccountTokenSetter: Service {
    public static let store = "apple"

    let api: AppStoreServerAPIClient
    let confirmations: StoreConfirmationStore
    let orders: OrderStore
    let logger: Logger
    let initialBackoff: TimeInterval
    let interval: Duration

    public init(
        api: AppStoreServerAPIClient, database: any SQLDatabase, logger: Logger, initialBackoff: TimeInterval = 5,
        interval: Duration = .seconds(1)
    ) {
        self.api = api
        self.confirmations = StoreConfirmationStore(database)
        self.orders = OrderStore(database)
        self.logger = logger
        self.initialBackoff = initialBackoff
        self.interval = interval
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await setDue()
            } catch {
                logger.warning("app account tokens: the database failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// Sends every owed token due at `now`; how many Apple took.
    @discardableResult
    public func setDue(now: Date = Date()) async throws -> Int {
        var done = 0
        for owed in try await confirmations.claimDue(stores: [Self.store], now: now, limit: 32) {
            guard let call = AppAccountTokenOwed(json: owed.payload),
                let owner = try await orders.accountToken(creditedFor: owed.transactionID, now: now),
                let uuid = UUID(uuidString: owner.token)
            else {
                try await confirmations.markFailed(owed, error: "no account or token to tell Apple", retryAt: nil)
                continue
            }
            do throws(AppStoreServerAPIError) {
                try await api.setAppAccountToken(
                    originalTransactionID: call.originalTransactionID, token: uuid, in: call.environment)
            } catch {
                let backoff = Backoff(base: .seconds(initialBackoff), cap: .seconds(3600))
                    .delay(afterFailures: owed.attempts)
                let wait = max(backoff, error.retryAfter ?? .zero)
                let retryAt = error.isRetryable ? now.addingTimeInterval(Self.seconds(wait)) : nil
                try await confirmations.markFailed(owed, error: "\(error)", retryAt: retryAt)
                logger.warning(
                    "app account token not set",
                    metadata: ["transaction_id": "\(owed.transactionID)", "error": "\(error)"])
                continue
            }
            try await confirmations.markDone(owed, now: now)
            done += 1
            logger.info(
                "app account token set",
                metadata: ["transaction_id": "\(owed.transactionID)", "account_id": "\(owner.accountID)"])
        }
        return done
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
