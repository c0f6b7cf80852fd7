import AppStore
import Foundation
import HTTPClient
import Testing

/// Apple's own JSON bodies (from app-store-server-library's test resources) decode into our
/// models, and survive a round trip.
@Suite struct AppStoreServerAPIModelTests {
    func decode<T: Codable & Equatable>(_ type: T.Type, _ name: String) throws -> T {
        let value = try JSONDecoder().decode(T.self, from: vector(name))
        // Round trip: what we encode decodes to the same value
        #expect(try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value)) == value)
        return value
    }

    @Test func transactionInfoResponse() throws {
        let response = try decode(TransactionInfoResponse.self, "transactionInfoResponse.json")
        #expect(response.signedTransactionInfo == "signed_transaction_info_value")
    }

    @Test func transactionHistoryResponse() throws {
        let response = try decode(TransactionHistoryResponse.self, "transactionHistoryResponse.json")
        #expect(response.revision == "revision_output")
        #expect(response.hasMore == true)
        #expect(response.bundleID == "com.example")
        #expect(response.appAppleID == 323232)
        #expect(response.environment == "LocalTesting")
        #expect(response.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
    }

    @Test func getAllSubscriptionStatusesResponse() throws {
        let response = try decode(SubscriptionStatusesResponse.self, "getAllSubscriptionStatusesResponse.json")
        #expect(response.environment == "LocalTesting")
        #expect(response.bundleID == "com.example")
        #expect(response.appAppleID == 5_454_545)
        let groups = try #require(response.data)
        #expect(groups.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
        let first = try #require(groups[0].lastTransactions)
        #expect(first.count == 2)
        #expect(first[0].status == .active)
        #expect(first[0].originalTransactionID == "3749183")
        #expect(first[0].signedTransactionInfo == "signed_transaction_one")
        #expect(first[0].signedRenewalInfo == "signed_renewal_one")
        #expect(first[1].status == .revoked)
        #expect(first[1].originalTransactionID == "5314314134")
        let second = try #require(groups[1].lastTransactions)
        #expect(second.map(\.status) == [.expired])
        #expect(second.map(\.signedRenewalInfo) == ["signed_renewal_three"])
    }

    @Test func lookupOrderIdResponse() throws {
        let response = try decode(OrderLookupResponse.self, "lookupOrderIdResponse.json")
        #expect(response.status == .invalid)
        #expect(response.rawStatus == 1)
        #expect(response.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
    }

    @Test func getRefundHistoryResponse() throws {
        let response = try decode(RefundHistoryResponse.self, "getRefundHistoryResponse.json")
        #expect(response.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
        #expect(response.revision == "revision_output")
        #expect(response.hasMore == true)
    }

    @Test func unknownStatusValues_stillDecode_andRoundTrip() throws {
        let json = #"{"status": 7, "signedTransactions": []}"#
        let response = try JSONDecoder().decode(OrderLookupResponse.self, from: Data(json.utf8))
        #expect(response.rawStatus == 7)
        #expect(response.status == nil)
        let again = try JSONDecoder().decode(OrderLookupResponse.self, from: JSONEncoder().encode(response))
        #expect(again.rawStatus == 7)
    }

    // MARK: Error bodies, as the client classifies them

    func classify(_ status: Int, _ name: String, headers: [(name: String, value: String)] = [])
        throws -> AppStoreServerAPIExchange.Step
    {
        AppStoreServerAPIExchange.classify(
            HTTPResponse(status: status, headers: headers, body: Array(try vector(name))), endpoint: "e",
            from: .production, now: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func apiException_isA500_retryable() throws {
        let body = try decode(AppStoreServerAPIErrorBody.self, "apiException.json")
        #expect(body.code == .generalInternal)
        #expect(body.errorMessage == "An unknown error occurred.")
        guard case .failure(let error) = try classify(500, "apiException.json") else {
            Issue.record("expected failure")
            return
        }
        #expect(error.errorCode == 5_000_000)
        #expect(error.errorMessage == "An unknown error occurred.")
        #expect(error.isRetryable)
    }

    @Test func apiTooManyRequestsException_isRateLimited_withRetryAfter() throws {
        let body = try decode(AppStoreServerAPIErrorBody.self, "apiTooManyRequestsException.json")
        #expect(body.code == .rateLimitExceeded)
        guard
            case .rateLimited(let error) = try classify(
                429, "apiTooManyRequestsException.json",
                headers: [("Retry-After", "1700000002000")])
        else {
            Issue.record("expected rateLimited")
            return
        }
        #expect(error.errorMessage == "Rate limit exceeded.")
        #expect(error.retryAfter == .seconds(2))
        #expect(error.isRetryable)
    }

    @Test func transactionIdNotFoundError_sendsProductionToTheSandbox() throws {
        let body = try decode(AppStoreServerAPIErrorBody.self, "transactionIdNotFoundError.json")
        #expect(body.code == .transactionIDNotFound)
        guard case .trySandbox(let error) = try classify(404, "transactionIdNotFoundError.json") else {
            Issue.record("expected trySandbox")
            return
        }
        #expect(error.errorMessage == "Transaction id not found.")
        #expect(!error.isRetryable)
    }

    @Test func invalidTransactionIdError_isPermanent() throws {
        guard case .failure(let error) = try classify(400, "invalidTransactionIdError.json") else {
            Issue.record("expected failure")
            return
        }
        #expect(error.apiErrorCode == .invalidTransactionID)
        #expect(!error.isRetryable)
        #expect(error.outcome == .rejected(reason: "app_store_api_4000006"))
    }

    @Test func apiUnknownError_keepsItsCode() throws {
        let body = try decode(AppStoreServerAPIErrorBody.self, "apiUnknownError.json")
        #expect(body.errorCode == 9_990_000)
        guard case .failure(let error) = try classify(400, "apiUnknownError.json") else {
            Issue.record("expected failure")
            return
        }
        #expect(error.errorCode == 9_990_000)
        #expect(!error.isRetryable)
    }
}
