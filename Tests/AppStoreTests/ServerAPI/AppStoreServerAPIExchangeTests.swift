import AppStore
import Foundation
import HTTPClient
import PipelineCore
import Testing

/// Classification, `Retry-After` and URLs: the pure parts of the client, with values only.
@Suite struct AppStoreServerAPIExchangeTests {
    enum Kind: String, Sendable {
        case success, trySandbox, rateLimited, failure
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var body: String
        var environment: AppStoreServerAPIEnvironment = .production
        var kind: Kind
        var retryable: Bool?
        var code: AppStoreServerAPIError.Code? = nil

        var testDescription: String { "\(status) \(body.isEmpty ? "-" : body) at \(environment.rawValue)" }
    }

    static func body(_ code: Int) -> String { #"{"errorCode": \#(code), "errorMessage": "m"}"# }

    static let table: [Row] = [
        Row(status: 200, body: #"{"signedTransactionInfo": "x"}"#, kind: .success),
        Row(status: 401, body: "Unauthenticated", kind: .failure, retryable: false, code: .unauthorized),
        Row(status: 429, body: body(4_290_000), kind: .rateLimited, retryable: true, code: .rateLimited),
        // TransactionIdNotFoundError: production sends us to the sandbox; the sandbox's is final
        Row(status: 404, body: body(4_040_010), kind: .trySandbox, retryable: false, code: .apiError),
        Row(
            status: 404, body: body(4_040_010), environment: .sandbox, kind: .failure, retryable: false, code: .apiError
        ),
        // Apple's documented retryable codes
        Row(status: 404, body: body(4_040_002), kind: .failure, retryable: true, code: .apiError),
        Row(status: 404, body: body(4_040_004), kind: .failure, retryable: true, code: .apiError),
        Row(status: 404, body: body(4_040_006), kind: .failure, retryable: true, code: .apiError),
        Row(status: 500, body: body(5_000_001), kind: .failure, retryable: true, code: .apiError),
        // Any 5xx, with or without Apple's body
        Row(status: 500, body: body(5_000_000), kind: .failure, retryable: true, code: .apiError),
        Row(status: 503, body: "", kind: .failure, retryable: true, code: .apiError),
        Row(status: 502, body: "<html>Bad Gateway</html>", environment: .sandbox, kind: .failure, retryable: true),
        // Other 4xx are permanent
        Row(status: 400, body: body(4_000_006), kind: .failure, retryable: false, code: .apiError),
        Row(status: 400, body: body(4_000_005), kind: .failure, retryable: false),
        Row(status: 404, body: body(4_040_005), kind: .failure, retryable: false),
        Row(status: 404, body: body(4_040_001), kind: .failure, retryable: false),
        Row(status: 404, body: "", kind: .failure, retryable: false),
        Row(status: 403, body: "Forbidden", kind: .failure, retryable: false),
        // A redirect is not Apple's answer (curl does not follow): the endpoint's fault
        Row(status: 302, body: "", kind: .failure, retryable: true),
    ]

    @Test(arguments: table)
    func classify(_ row: Row) throws {
        // Given an answer
        let response = HTTPResponse(status: row.status, body: Array(row.body.utf8))
        // When it is classified
        let step = AppStoreServerAPIExchange.classify(response, endpoint: "getTransactionInfo", from: row.environment)
        // Then it is the expected step, with the expected advice
        let (kind, error): (Kind, AppStoreServerAPIError?) =
            switch step {
            case .success: (.success, nil)
            case .trySandbox(let error): (.trySandbox, error)
            case .rateLimited(let error): (.rateLimited, error)
            case .failure(let error): (.failure, error)
            }
        #expect(kind == row.kind)
        if let retryable = row.retryable {
            let error = try #require(error)
            #expect(error.isRetryable == retryable)
            #expect(error.status == row.status)
            #expect(error.environment == row.environment)
            #expect(error.endpoint == "getTransactionInfo")
            if let code = row.code { #expect(error.code == code) }
            if row.body.hasPrefix("{") {
                #expect(error.errorMessage == "m")
                #expect(error.errorCode != nil)
            } else {
                #expect(error.errorCode == nil)
            }
        }
    }

    @Test func rateLimited_carriesRetryAfter() throws {
        let response = HTTPResponse(
            status: 429, headers: [("retry-after", "3")], body: Array(Self.body(4_290_000).utf8))
        guard case .rateLimited(let error) = AppStoreServerAPIExchange.classify(response, endpoint: "e", from: .sandbox)
        else {
            Issue.record("expected rateLimited")
            return
        }
        #expect(error.retryAfter == .seconds(3))
        #expect(error.apiErrorCode == .rateLimitExceeded)
        #expect(error.outcome == .transient(reason: "app_store_api_4290000", retryAfter: .seconds(3)))
    }

    @Test func transportFailures_followTheHTTPClientsAdvice() {
        let timeout = AppStoreServerAPIExchange.classify(
            HTTPClientError(.timeout, message: "slow"), endpoint: "e", at: .production)
        #expect(timeout.code == .transport)
        #expect(timeout.isRetryable)
        #expect(timeout.reason == "timeout")
        #expect(timeout.status == nil)
        let refused = AppStoreServerAPIExchange.classify(
            HTTPClientError(.connectionRefused, message: "no"), endpoint: "e", at: .sandbox)
        #expect(refused.isRetryable && refused.reason == "connection_refused" && refused.environment == .sandbox)
        let invalid = AppStoreServerAPIExchange.classify(
            HTTPClientError(.invalidRequest, message: "bad url"), endpoint: "e", at: .production)
        #expect(!invalid.isRetryable)
        #expect(invalid.outcome == .rejected(reason: "invalid_request"))
        let cancelled = AppStoreServerAPIExchange.classify(
            HTTPClientError(.cancelled, message: "cancelled"), endpoint: "e", at: .production)
        #expect(!cancelled.isRetryable)
    }

    @Test func reasonsAndOutcomes() {
        func error(status: Int, code: Int?, retryable: Bool) -> AppStoreServerAPIError {
            AppStoreServerAPIError(
                .apiError, endpoint: "e", environment: .production, status: status, errorCode: code,
                isRetryable: retryable)
        }
        #expect(
            error(status: 404, code: 4_040_010, retryable: false).outcome == .rejected(reason: "app_store_api_4040010"))
        #expect(error(status: 503, code: nil, retryable: true).outcome == .transient(reason: "http_503"))
        #expect(error(status: 401, code: nil, retryable: false).reason == "http_401")
    }

    @Test func retryableCodes_areExactlyApplesDocumentedOnes() {
        #expect(
            AppStoreServerAPIErrorCode.retryable.map(\.rawValue).sorted() == [
                4_040_002, 4_040_004, 4_040_006, 5_000_001,
            ])
        #expect(!AppStoreServerAPIErrorCode.transactionIDNotFound.isRetryable)
        #expect(!AppStoreServerAPIErrorCode.generalInternal.isRetryable)
        // Yet the 500 that carries 5000000 is retryable, by its status
        #expect(AppStoreServerAPIExchange.isRetryable(status: 500, errorCode: 5_000_000))
        #expect(!AppStoreServerAPIExchange.isRetryable(status: 404, errorCode: 4_040_010))
        #expect(AppStoreServerAPIExchange.isRetryable(status: 404, errorCode: 4_040_006))
    }

    // MARK: Retry-After

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: [
        ("1", Duration.seconds(1)), (" 120 ", .seconds(120)), ("0", .zero),
        // Apple documents a UNIX time in milliseconds for this API
        ("1700000001500", .milliseconds(1500)), ("1699999990000", .zero),
        ("Tue, 14 Nov 2023 22:13:50 GMT", .seconds(30)),
    ])
    func retryAfter_parses(value: String, expected: Duration) {
        #expect(AppStoreServerAPIExchange.retryAfter(value, now: Self.now) == expected)
    }

    @Test(arguments: ["", "-1", "soon", "1.5", "Tue, 14 Nov 2023 22:13:00 GMT"])
    func retryAfter_unusable_isNil(value: String) {
        #expect(AppStoreServerAPIExchange.retryAfter(value, now: Self.now) == nil)
    }

    // MARK: URLs

    @Test func urls_followApplesPaths() {
        let base = "https://api.storekit.itunes.apple.com"
        #expect(
            AppStoreServerAPIEndpoint.transactionInfo(transactionID: "2000000123").url(baseURL: base)
                == "https://api.storekit.itunes.apple.com/inApps/v1/transactions/2000000123")
        #expect(
            AppStoreServerAPIEndpoint.transactionHistory(transactionID: "1", revision: nil).url(baseURL: base)
                == base + "/inApps/v2/history/1")
        #expect(
            AppStoreServerAPIEndpoint.allSubscriptionStatuses(transactionID: "1").url(baseURL: base)
                == base + "/inApps/v1/subscriptions/1")
        #expect(
            AppStoreServerAPIEndpoint.lookUpOrderID("MK5TTTVWJH").url(baseURL: base) == base
                + "/inApps/v1/lookup/MK5TTTVWJH")
        #expect(
            AppStoreServerAPIEndpoint.refundHistory(transactionID: "1", revision: "r1").url(baseURL: base)
                == base + "/inApps/v2/refund/lookup/1?revision=r1")
    }

    @Test func urls_keepABasePathPrefix_andDropTrailingSlashes() {
        let endpoint = AppStoreServerAPIEndpoint.transactionHistory(transactionID: "7", revision: "abc")
        #expect(
            endpoint.url(baseURL: "http://127.0.0.1:8090/sandbox/")
                == "http://127.0.0.1:8090/sandbox/inApps/v2/history/7?revision=abc")
        #expect(
            endpoint.url(baseURL: "http://127.0.0.1:8090//") == "http://127.0.0.1:8090/inApps/v2/history/7?revision=abc"
        )
    }

    @Test func urls_encodeWhatCouldEscapeItsPlace() {
        let base = "https://h"
        // A revision is opaque: whatever it holds stays one query value
        #expect(
            AppStoreServerAPIEndpoint.transactionHistory(transactionID: "1", revision: "a+b/c=d&e f").url(baseURL: base)
                == "https://h/inApps/v2/history/1?revision=a%2Bb%2Fc%3Dd%26e%20f")
        // An id cannot leave its path segment
        #expect(
            AppStoreServerAPIEndpoint.lookUpOrderID("../x?y#z").url(baseURL: base)
                == "https://h/inApps/v1/lookup/..%2Fx%3Fy%23z")
        #expect(AppStoreServerAPIEndpoint.lookUpOrderID("..").url(baseURL: base) == "https://h/inApps/v1/lookup/%2E%2E")
        #expect(AppStoreServerAPIEndpoint.lookUpOrderID("é").url(baseURL: base) == "https://h/inApps/v1/lookup/%C3%A9")
    }

    // MARK: Bodies

    @Test func successBodyThatIsNotTheModel_isRetryableInvalidResponse() {
        let response = HTTPResponse(status: 200, body: Array("<html>".utf8))
        do {
            _ = try AppStoreServerAPIExchange.decode(
                TransactionInfoResponse.self, from: response, endpoint: "getTransactionInfo", environment: .production)
            Issue.record("decoded HTML")
        } catch {
            #expect(error.code == .invalidResponse)
            #expect(error.isRetryable)
            #expect(error.reason == "invalid_response_body")
            #expect(error.status == 200)
        }
    }
}
