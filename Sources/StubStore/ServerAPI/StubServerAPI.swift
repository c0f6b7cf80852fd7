import AppStore
import Foundation
import Synchronization

/// The stub's App Store Server API: the transactions it knows per deployment, and the answers
/// Apple would give about them.
///
/// Served by ``StubAppStore/makeRouter()`` at `/inApps/...` (production) and
/// `/sandbox/inApps/...` (sandbox); see ``StubAppStore/addServerAPIRoutes(to:)``. Requests need
/// a bearer JWT that ``StubServerAPIConfiguration`` accepts, else `401`.
///
/// ```swift
/// let store = StubAppStore(configuration: .init(serverAPI: .init(publicKey: key.publicKey)))
/// store.serverAPI.register(signedTransaction: jws, transactionID: "2000000000000001", environment: .sandbox)
/// ```
public final class StubServerAPI: Sendable {
    /// Whose tokens are accepted, the page size and the throttle.
    public let configuration: StubServerAPIConfiguration
    /// The `bid` tokens must carry and answers name.
    public let bundleID: String
    let now: @Sendable () -> Date
    /// The notifications the stub's StoreKit side sent: Get Notification History's.
    public let history: StubNotificationHistory
    private let state: Mutex<State>

    private struct State {
        /// Per deployment, in registration order.
        var transactions: [StubReceipt.Environment: [StubServerTransaction]] = [:]
        var rateLimitLeft: Int
        var stats = StubServerAPIStats()
        var consumption: [ConsumptionAnswer] = []
        var accountTokens: [AccountToken] = []
    }

    /// A Set App Account Token the stub accepted.
    public struct AccountToken: Hashable, Sendable {
        public var environment: StubReceipt.Environment
        public var originalTransactionID: String
        /// Lowercased, as sent.
        public var appAccountToken: String

        public init(environment: StubReceipt.Environment, originalTransactionID: String, appAccountToken: String) {
            self.environment = environment
            self.originalTransactionID = originalTransactionID
            self.appAccountToken = appAccountToken
        }
    }

    /// Every Set App Account Token accepted so far, in order.
    public var accountTokens: [AccountToken] { state.withLock { $0.accountTokens } }

    func recordAccountToken(_ token: AccountToken) {
        state.withLock { $0.accountTokens.append(token) }
    }

    /// A Send Consumption Information the stub accepted.
    public struct ConsumptionAnswer: Hashable, Sendable {
        public var environment: StubReceipt.Environment
        public var transactionID: String
        public var information: ConsumptionInformation
    }

    /// Every Send Consumption Information accepted so far, in order.
    public var consumptionAnswers: [ConsumptionAnswer] { state.withLock { $0.consumption } }

    func recordConsumption(
        _ transactionID: String, _ information: ConsumptionInformation, at environment: StubReceipt.Environment
    ) {
        state.withLock {
            $0.consumption.append(
                ConsumptionAnswer(environment: environment, transactionID: transactionID, information: information))
        }
    }

    /// Creates an empty API.
    /// - Parameters:
    ///   - configuration: Whose tokens are accepted, the page size and the throttle.
    ///   - bundleID: The app's bundle id.
    ///   - now: The clock tokens are checked against.
    public init(
        configuration: StubServerAPIConfiguration, bundleID: String, history: StubNotificationHistory = .init(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.bundleID = bundleID
        self.history = history
        self.now = now
        self.state = Mutex(State(rateLimitLeft: configuration.rateLimitFirst))
    }

    /// What has been answered so far.
    public var stats: StubServerAPIStats { state.withLock { $0.stats } }

    // MARK: Registering

    /// Makes `transaction` known to its deployment; one with the same id there is replaced in
    /// place (to mark it refunded, say), keeping its position in the history.
    /// - Parameter transaction: The transaction.
    public func register(_ transaction: StubServerTransaction) {
        state.withLock { state in
            state.stats.registered += 1
            var list = state.transactions[transaction.environment, default: []]
            if let index = list.firstIndex(where: { $0.transactionID == transaction.transactionID }) {
                list[index] = transaction
            } else {
                list.append(transaction)
            }
            state.transactions[transaction.environment] = list
        }
    }

    /// Makes a transaction known; see ``StubServerTransaction`` for the parameters.
    public func register(
        signedTransaction: String, transactionID: String, originalTransactionID: String? = nil,
        environment: StubReceipt.Environment = .production, customerID: String? = nil, orderID: String? = nil,
        subscriptionGroupID: String? = nil, signedRenewalInfo: String? = nil, subscriptionStatus: Int? = nil,
        isRefunded: Bool = false
    ) {
        register(
            StubServerTransaction(
                signedTransaction: signedTransaction, transactionID: transactionID,
                originalTransactionID: originalTransactionID, environment: environment, customerID: customerID,
                orderID: orderID, subscriptionGroupID: subscriptionGroupID, signedRenewalInfo: signedRenewalInfo,
                subscriptionStatus: subscriptionStatus, isRefunded: isRefunded))
    }

    // MARK: Admission

    /// Counts a request at `environment`, and in its endpoint's second.
    /// - Returns: When ``StubServerAPIConfiguration/enforcesRateLimits`` and the second
    ///   already holds Apple's limit of calls: the next second (since 1970), to answer `429`.
    func countRequest(at environment: StubReceipt.Environment, endpoint: String) -> Int64? {
        let second = Int64(now().timeIntervalSince1970.rounded(.down))
        let key = "\(environment == .production ? "production" : "sandbox")/\(endpoint)"
        let limit =
            configuration.enforcesRateLimits
            ? AppStoreServerAPIRates(share: 1).budget(
                for: endpoint, at: environment == .production ? .production : .sandbox, bundleID: bundleID
            ).limit
            : nil
        return state.withLock { state in
            state.stats[environment].requests += 1
            let calls = state.stats.record(key, second: second)
            guard let limit, Double(calls) > limit.rounded(.down) else { return nil }
            return second + 1
        }
    }

    /// Whether the throttle refuses this (authenticated) request: true for the first
    /// ``StubServerAPIConfiguration/rateLimitFirst`` asked.
    func takeRateLimit() -> Bool {
        state.withLock { state in
            guard state.rateLimitLeft > 0 else { return false }
            state.rateLimitLeft -= 1
            return true
        }
    }

    /// Counts an answer.
    func answered(_ status: Int, at environment: StubReceipt.Environment) {
        state.withLock { $0.stats[environment].statuses[String(status), default: 0] += 1 }
    }

    // MARK: Lookups

    /// The transactions of the customer `transactionID` belongs to (it may be an original
    /// transaction id), in registration order; `nil` if `environment` does not know it.
    func customerTransactions(of transactionID: String, at environment: StubReceipt.Environment)
        -> [StubServerTransaction]?
    {
        state.withLock { state in
            let all = state.transactions[environment] ?? []
            guard
                let found = all.first(where: { $0.transactionID == transactionID })
                    ?? all.first(where: { $0.originalTransactionID == transactionID })
            else { return nil }
            return all.filter { $0.customer == found.customer }
        }
    }

    /// The transaction with `transactionID` (or, failing that, the latest with that original id).
    func transaction(_ transactionID: String, at environment: StubReceipt.Environment) -> StubServerTransaction? {
        state.withLock { state in
            let all = state.transactions[environment] ?? []
            return all.first(where: { $0.transactionID == transactionID })
                ?? all.last(where: { $0.originalTransactionID == transactionID })
        }
    }

    /// The transactions of order `orderID`.
    func transactions(ofOrder orderID: String, at environment: StubReceipt.Environment) -> [StubServerTransaction] {
        state.withLock { ($0.transactions[environment] ?? []).filter { $0.orderID == orderID } }
    }
}
