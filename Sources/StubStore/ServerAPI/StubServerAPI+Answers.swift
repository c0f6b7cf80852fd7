import AppStore
import Foundation

/// What the stub answers an App Store Server API request, before it becomes HTTP.
enum StubServerAPIAnswer: Sendable {
    /// `200` with this body.
    case ok(any Encodable & Sendable)
    /// `202` without a body.
    case accepted
    /// An error status with Apple's `{"errorCode", "errorMessage"}` body.
    case error(status: Int, code: Int, message: String)

    static let transactionIDNotFound = Self.error(status: 404, code: 4_040_010, message: "Transaction id not found.")
    static let invalidTransactionID = Self.error(status: 400, code: 4_000_006, message: "Invalid transaction id.")
    static let invalidRevision = Self.error(status: 400, code: 4_000_005, message: "Invalid request revision.")
    static let rateLimitExceeded = Self.error(status: 429, code: 4_290_000, message: "Rate limit exceeded.")
}

extension StubServerAPI {
    /// Get Transaction Info.
    func transactionInfo(_ transactionID: String, at environment: StubReceipt.Environment) -> StubServerAPIAnswer {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let transaction = transaction(transactionID, at: environment) else { return .transactionIDNotFound }
        return .ok(TransactionInfoResponse(signedTransactionInfo: transaction.signedTransaction))
    }

    /// Get Transaction History (v2): the customer's transactions, a page at a time.
    func transactionHistory(
        _ transactionID: String, revision: String?, at environment: StubReceipt.Environment
    ) -> StubServerAPIAnswer {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let all = customerTransactions(of: transactionID, at: environment) else { return .transactionIDNotFound }
        guard let page = page(of: all.map(\.signedTransaction), after: revision) else { return .invalidRevision }
        return .ok(
            TransactionHistoryResponse(
                revision: page.revision, hasMore: page.hasMore, bundleID: bundleID,
                appAppleID: environment == .production ? configuration.appAppleID : nil,
                environment: environment.rawValue, signedTransactions: page.items))
    }

    /// Send Consumption Information (v2): kept for tests if Apple would take it.
    /// Set App Account Token: a UUID, for a transaction the stub knows by its original id.
    func setAppAccountToken(_ transactionID: String, _ body: [String: String]?, at environment: StubReceipt.Environment)
        -> StubServerAPIAnswer
    {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let token = body?["appAccountToken"], let uuid = UUID(uuidString: token) else {
            return .error(
                status: 400, code: 4_000_183,
                message: "Invalid request. The app account token field must be a valid UUID.")
        }
        guard let found = transaction(transactionID, at: environment) else { return .transactionIDNotFound }
        guard found.originalTransactionID == transactionID else {
            return .error(
                status: 400, code: 4_000_187, message: "Invalid request. The transaction id is not an original one.")
        }
        recordAccountToken(
            .init(
                environment: environment, originalTransactionID: transactionID,
                appAccountToken: uuid.uuidString.lowercased()))
        return .ok([String: String]())
    }

    func consumption(
        _ transactionID: String, _ information: ConsumptionInformation?, at environment: StubReceipt.Environment
    ) -> StubServerAPIAnswer {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let information else { return .error(status: 400, code: 4_000_000, message: "Invalid request.") }
        guard information.customerConsented else {
            return .error(status: 400, code: 4_000_035, message: "Invalid customer consented.")
        }
        let statuses = [
            "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
            "UNDELIVERED_OTHER",
        ]
        guard statuses.contains(information.deliveryStatus) else {
            return .error(status: 400, code: 4_000_036, message: "Invalid delivery status.")
        }
        if let share = information.consumptionPercentage, !(0...100_000).contains(share) {
            return .error(status: 400, code: 4_000_000, message: "Invalid consumption percentage.")
        }
        if let preference = information.refundPreference,
            !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference)
        {
            return .error(status: 400, code: 4_000_000, message: "Invalid refund preference.")
        }
        guard transaction(transactionID, at: environment) != nil else { return .transactionIDNotFound }
        recordConsumption(transactionID, information, at: environment)
        return .accepted
    }

    /// Get Notification History: the notifications first sent in the window (only the
    /// undelivered ones, if asked), a page at a time. Apple's limits: a window that ends
    /// after it starts, no older than 180 days.
    func notificationHistory(
        _ request: NotificationHistoryRequest?, paginationToken: String?, at environment: StubReceipt.Environment
    ) -> StubServerAPIAnswer {
        let days180: Int64 = 180 * 86_400_000
        let nowMillis = Int64(now().timeIntervalSince1970 * 1000)
        guard let request else { return .error(status: 400, code: 4_000_000, message: "Invalid request.") }
        guard request.startDate >= nowMillis - days180 else {
            return .error(status: 400, code: 4_000_015, message: "Invalid start date.")
        }
        guard request.endDate > request.startDate else {
            return .error(status: 400, code: 4_000_016, message: "Invalid end date.")
        }
        let all = history.list(request, at: environment)
        guard let page = page(of: all.map(\.signedPayload), after: paginationToken) else {
            return .error(status: 400, code: 4_000_000, message: "Invalid pagination token.")
        }
        let items = page.items.compactMap { payload in all.first { $0.signedPayload == payload } }
            .map { NotificationHistoryResponseItem(signedPayload: $0.signedPayload, sendAttempts: $0.attempts) }
        return .ok(
            NotificationHistoryResponse(
                notificationHistory: items, hasMore: page.hasMore, paginationToken: page.hasMore ? page.revision : nil))
    }

    /// Get Refund History (v2): the customer's refunded transactions, a page at a time.
    func refundHistory(
        _ transactionID: String, revision: String?, at environment: StubReceipt.Environment
    ) -> StubServerAPIAnswer {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let all = customerTransactions(of: transactionID, at: environment) else { return .transactionIDNotFound }
        let refunded = all.filter(\.isRefunded).map(\.signedTransaction)
        guard let page = page(of: refunded, after: revision) else { return .invalidRevision }
        return .ok(
            RefundHistoryResponse(signedTransactions: page.items, revision: page.revision, hasMore: page.hasMore))
    }

    /// Get All Subscription Statuses: per group, the latest transaction of each subscription.
    func subscriptionStatuses(_ transactionID: String, at environment: StubReceipt.Environment) -> StubServerAPIAnswer {
        guard Self.isTransactionID(transactionID) else { return .invalidTransactionID }
        guard let all = customerTransactions(of: transactionID, at: environment) else { return .transactionIDNotFound }
        var groups: [String] = []
        var latest: [String: [String: StubServerTransaction]] = [:]  // group → original id → latest
        var originals: [String: [String]] = [:]  // group → original ids in order
        for transaction in all {
            guard let group = transaction.subscriptionGroupID else { continue }
            if latest[group] == nil {
                groups.append(group)
                latest[group] = [:]
            }
            if latest[group]?[transaction.originalTransactionID] == nil {
                originals[group, default: []].append(transaction.originalTransactionID)
            }
            latest[group]?[transaction.originalTransactionID] = transaction
        }
        let data = groups.map { group in
            SubscriptionStatusesResponse.SubscriptionGroup(
                subscriptionGroupIdentifier: group,
                lastTransactions: (originals[group] ?? []).compactMap { latest[group]?[$0] }.map { transaction in
                    .init(
                        status: transaction.subscriptionStatus ?? (transaction.isRefunded ? 5 : 1),
                        originalTransactionID: transaction.originalTransactionID,
                        signedTransactionInfo: transaction.signedTransaction,
                        signedRenewalInfo: transaction.signedRenewalInfo)
                })
        }
        return .ok(
            SubscriptionStatusesResponse(
                environment: environment.rawValue, bundleID: bundleID,
                appAppleID: environment == .production ? configuration.appAppleID : nil, data: data))
    }

    /// Look Up Order ID: `status` 0 with the order's transactions, or 1 and none.
    func orderLookup(_ orderID: String, at environment: StubReceipt.Environment) -> StubServerAPIAnswer {
        let found = transactions(ofOrder: orderID, at: environment)
        return .ok(
            OrderLookupResponse(status: found.isEmpty ? 1 : 0, signedTransactions: found.map(\.signedTransaction)))
    }

    // MARK: Paging

    /// The page after `revision` (`nil`: the first). A revision is `stub-<n>`, `n` being how
    /// many items came before; the last page's revision points past the end, as Apple's
    /// points at what is yet to come.
    func page(of items: [String], after revision: String?) -> (items: [String], revision: String, hasMore: Bool)? {
        var start = 0
        if let revision {
            guard revision.hasPrefix("stub-"), let offset = Int(revision.dropFirst("stub-".count)), offset >= 0,
                offset <= items.count
            else { return nil }
            start = offset
        }
        let end = min(start + configuration.pageSize, items.count)
        return (Array(items[start..<end]), "stub-\(end)", end < items.count)
    }

    /// Apple's transaction ids are decimal numbers; anything else is `4000006`.
    static func isTransactionID(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 32
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
