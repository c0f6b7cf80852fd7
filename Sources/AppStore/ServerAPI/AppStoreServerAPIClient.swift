import Foundation
import HTTPClient
import Logging
import PipelineCore

/// A client of the App Store Server API
/// ([App Store Server API](https://developer.apple.com/documentation/appstoreserverapi)), or of
/// any server that speaks it (the stub store).
///
/// Every call asks production first; `4040010` (`TransactionIdNotFoundError`) sends the same
/// request to the sandbox. Every request first books its turn in its endpoint's call budget
/// (``AppStoreServerAPIRates``), shared through `budgets` by every process that calls Apple,
/// and waits for it without spinning; a turn more than ``Configuration/maxRetryAfter`` away
/// fails the call as ``AppStoreServerAPIError/Code/overBudget``. A `429` pauses the budget
/// for every process until its `Retry-After`, then books again, up to
/// ``Configuration/maxRetries`` times. Every failure is an ``AppStoreServerAPIError`` that says
/// whether to retry. Signed fields (`signedTransactionInfo`, ...) come back as the JWS strings
/// Apple sent: verify them before trusting them.
///
/// ```swift
/// let http = try CurlHTTPClient()
/// let key = try AppStoreServerAPIKey(
///     privateKeyPEM: p8, keyID: keyID, issuerID: issuerID, bundleID: "com.example.game")
/// let api = try AppStoreServerAPIClient(key: key, httpClient: http)
/// let info = try await api.getTransactionInfo(transactionID: "2000000123456789")
/// print(info.environment, info.body.signedTransactionInfo ?? "-")
/// ```
public final class AppStoreServerAPIClient: Sendable {
    /// The endpoints and retry budget in use.
    public let configuration: Configuration
    /// The credentials requests are signed with.
    public var key: AppStoreServerAPIKey { tokens.key }
    private let tokens: AppStoreJWTCache
    let budgets: any CallBudgetKeeper
    private let http: CurlHTTPClient
    let logger: Logger
    let now: @Sendable () -> Date

    /// Creates a client.
    /// - Parameters:
    ///   - key: The credentials.
    ///   - configuration: The endpoints and retry budget.
    ///   - httpClient: The HTTP client to send with; shared, not owned: its owner shuts it down.
    ///   - budgets: Where the call budgets are kept: the pipeline's store, so that every
    ///     process calling Apple shares them; this process's memory by default.
    ///   - logger: Where fallbacks and waits are reported, at debug level.
    ///   - now: The clock, for the JWTs and `Retry-After` dates.
    /// - Throws: ``AppStoreServerAPIConfigurationError`` for a URL that is not `http(s)`, a
    ///   timeout or budget out of range, a token lifetime over 60 minutes, or a key that cannot sign.
    public init(
        key: AppStoreServerAPIKey, configuration: Configuration = .init(), httpClient: CurlHTTPClient,
        budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        logger: Logger = Logger(label: "AppStore.serverAPI"), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AppStoreServerAPIConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.tokens = try AppStoreJWTCache(key: key, lifetime: configuration.tokenLifetime, now: now)
        self.http = httpClient
        self.budgets = budgets
        self.logger = logger
        self.now = now
    }

    // MARK: Endpoints

    /// Get Transaction Info: one transaction, signed
    /// ([Get Transaction Info](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info)).
    /// - Parameter transactionID: Any transaction id of the customer's.
    public func getTransactionInfo(
        transactionID: String
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<TransactionInfoResponse> {
        try await send(.transactionInfo(transactionID: transactionID), as: TransactionInfoResponse.self)
    }

    /// Get Transaction History (v2): one page of the customer's transactions in the app
    /// ([Get Transaction History](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history)).
    /// - Parameters:
    ///   - transactionID: Any transaction id of the customer's.
    ///   - revision: The previous page's `revision`, or `nil` for the first page.
    public func getTransactionHistory(
        transactionID: String, revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<TransactionHistoryResponse> {
        try await send(
            .transactionHistory(transactionID: transactionID, revision: revision), as: TransactionHistoryResponse.self)
    }

    /// Every page of Get Transaction History from `revision` on, joined: the transactions of
    /// all pages in order, and the last page's `revision` (to ask later for what changed).
    /// - Parameters:
    ///   - transactionID: Any transaction id of the customer's.
    ///   - revision: Where to start, or `nil` for the beginning.
    public func getCompleteTransactionHistory(
        transactionID: String, revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<TransactionHistoryResponse> {
        try await allPages(from: revision, as: TransactionHistoryResponse.self) { revision in
            .transactionHistory(transactionID: transactionID, revision: revision)
        }
    }

    /// Get All Subscription Statuses: the latest transaction and renewal info of each of the
    /// customer's subscriptions
    /// ([Get All Subscription Statuses](https://developer.apple.com/documentation/appstoreserverapi/get-all-subscription-statuses)).
    /// - Parameter transactionID: Any transaction id of the customer's.
    public func getAllSubscriptionStatuses(
        transactionID: String
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<SubscriptionStatusesResponse> {
        try await send(.allSubscriptionStatuses(transactionID: transactionID), as: SubscriptionStatusesResponse.self)
    }

    /// Look Up Order ID: the transactions of the order on the customer's e-mailed receipt
    /// ([Look Up Order ID](https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id)).
    ///
    /// An unknown order id is an answer (`status` ``OrderLookupResponse/Status/invalid``), not an error.
    /// - Parameter orderID: The order id, such as `MK5TTTVWJH`.
    public func lookUpOrderID(
        _ orderID: String
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<OrderLookupResponse> {
        try await send(.lookUpOrderID(orderID), as: OrderLookupResponse.self)
    }

    /// Get Refund History (v2): one page of the customer's refunded transactions
    /// ([Get Refund History](https://developer.apple.com/documentation/appstoreserverapi/get-refund-history)).
    /// - Parameters:
    ///   - transactionID: Any transaction id of the customer's.
    ///   - revision: The previous page's `revision`, or `nil` for the first page.
    public func getRefundHistory(
        transactionID: String, revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<RefundHistoryResponse> {
        try await send(.refundHistory(transactionID: transactionID, revision: revision), as: RefundHistoryResponse.self)
    }

    /// Every page of Get Refund History from `revision` on, joined.
    /// - Parameters:
    ///   - transactionID: Any transaction id of the customer's.
    ///   - revision: Where to start, or `nil` for the beginning.
    public func getCompleteRefundHistory(
        transactionID: String, revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<RefundHistoryResponse> {
        try await allPages(from: revision, as: RefundHistoryResponse.self) { revision in
            .refundHistory(transactionID: transactionID, revision: revision)
        }
    }

    /// Get Notification History: one page of the notifications Apple sent (or tried to)
    /// in a window of up to 180 days
    /// ([Get Notification History](https://developer.apple.com/documentation/appstoreserverapi/get-notification-history)).
    /// - Parameters:
    ///   - request: The window and filters (`onlyFailures` for those that never reached us).
    ///   - paginationToken: The previous page's token, or `nil` for the first page.
    ///   - environment: The deployment whose notifications to list (no fallback: each has its own).
    public func getNotificationHistory(
        _ request: NotificationHistoryRequest, paginationToken: String? = nil,
        in environment: AppStoreServerAPIEnvironment
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<NotificationHistoryResponse> {
        try await send(
            .notificationHistory(request, paginationToken: paginationToken), as: NotificationHistoryResponse.self,
            in: environment)
    }

    /// Send Consumption Information (v2): what we know of a purchase whose customer asked
    /// Apple for a refund, after a `CONSUMPTION_REQUEST`; Apple answers `202`.
    /// - Parameters:
    ///   - transactionID: The transaction the notification names.
    ///   - information: The answer; `customerConsented` must be true.
    ///   - environment: The deployment the notification came from.
    public func sendConsumptionInformation(
        transactionID: String, _ information: ConsumptionInformation, in environment: AppStoreServerAPIEnvironment
    ) async throws(AppStoreServerAPIError) {
        _ = try await send(
            .sendConsumptionInformation(transactionID: transactionID, information), as: AppStoreServerAPINoContent.self,
            in: environment)
    }

    /// Set App Account Token: tells Apple which account a purchase made outside the app
    /// belongs to (20 requests a second, booked in the budget as every call is).
    public func setAppAccountToken(
        originalTransactionID: String, token: UUID, in environment: AppStoreServerAPIEnvironment
    ) async throws(AppStoreServerAPIError) {
        _ = try await send(
            .setAppAccountToken(originalTransactionID: originalTransactionID, token: token),
            as: AppStoreServerAPINoContent.self, in: environment)
    }

    // MARK: Sending

    /// Sends `endpoint` and decodes the answer as `Body`: production first and the sandbox on
    /// `4040010` (unless `environment` pins one), waiting out `429`s within the budget.
    /// - Parameters:
    ///   - endpoint: The call.
    ///   - type: The answer's model.
    ///   - environment: The one deployment to ask, or `nil` for production with sandbox fallback.
    /// - Returns: The decoded answer and who gave it.
    /// - Throws: ``AppStoreServerAPIError``.
    public func send<Body: Decodable & Sendable>(
        _ endpoint: AppStoreServerAPIEndpoint, as type: Body.Type, in environment: AppStoreServerAPIEnvironment? = nil
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<Body> {
        var current = environment ?? .production
        let mayFallBack = environment == nil && configuration.sandboxFallback
        var waits = 0
        while true {
            try await waitForTurn(endpoint, at: current)
            let response = try await execute(endpoint, at: current)
            switch AppStoreServerAPIExchange.classify(response, endpoint: endpoint.name, from: current, now: now()) {
            case .success(let response):
                let body = try AppStoreServerAPIExchange.decode(
                    Body.self, from: response, endpoint: endpoint.name, environment: current)
                return AppStoreServerAPIResponse(body: body, environment: current)
            case .trySandbox(let error):
                guard mayFallBack else { throw error }
                logger.debug(
                    "App Store Server API: not in production, asking the sandbox", metadata: ["call": "\(endpoint)"])
                current = .sandbox
            case .rateLimited(let error):
                let wait = error.retryAfter ?? configuration.defaultRetryAfter
                try await pause(endpoint, at: current, for: wait)
                guard waits < configuration.maxRetries else { throw error }
                waits += 1
                logger.debug(
                    "App Store Server API: rate limited, every caller waits",
                    metadata: ["call": "\(endpoint)", "wait": "\(wait)", "attempt": "\(waits)"])
            case .failure(let error):
                throw error
            }
        }
    }

    private func execute(
        _ endpoint: AppStoreServerAPIEndpoint, at environment: AppStoreServerAPIEnvironment
    ) async throws(AppStoreServerAPIError) -> HTTPResponse {
        let token: AppStoreJWT
        do {
            token = try tokens.token()
        } catch {
            throw AppStoreServerAPIError(
                .configuration, endpoint: endpoint.name, environment: environment, isRetryable: false,
                detail: error.description)
        }
        var headers = [("Authorization", "Bearer \(token.token)"), ("Accept", "application/json")]
        if endpoint.body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPRequest(
            method: endpoint.method,
            url: endpoint.url(baseURL: configuration.baseURL(environment)),
            headers: headers, body: endpoint.body,
            timeout: configuration.timeout
        )
        do {
            return try await http.execute(request)
        } catch {
            throw AppStoreServerAPIExchange.classify(error, endpoint: endpoint.name, at: environment)
        }
    }

    /// Follows `revision` from page to page in the deployment that answered the first.
    private func allPages<Page: AppStoreServerAPIPage>(
        from revision: String?, as type: Page.Type,
        endpoint: (_ revision: String?) -> AppStoreServerAPIEndpoint
    ) async throws(AppStoreServerAPIError) -> AppStoreServerAPIResponse<Page> {
        let first = try await send(endpoint(revision), as: Page.self)
        var page = first.body
        var transactions = page.signedTransactions ?? []
        var seen: Set<String> = revision.map { [$0] } ?? []
        var pages = 1
        while page.hasMore == true {
            guard let next = page.revision, seen.insert(next).inserted, pages < configuration.maxPages else {
                throw AppStoreServerAPIError(
                    .invalidResponse, endpoint: endpoint(revision).name, environment: first.environment,
                    isRetryable: true,
                    detail:
                        "history pages do not end: page \(pages) says hasMore with revision \(page.revision ?? "none")")
            }
            page = try await send(endpoint(next), as: Page.self, in: first.environment).body
            transactions += page.signedTransactions ?? []
            pages += 1
        }
        page.signedTransactions = transactions
        return AppStoreServerAPIResponse(body: page, environment: first.environment)
    }
}
