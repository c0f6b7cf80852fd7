import AppStore
import Foundation
import HTTPClient
import PipelineCore
import Testing

/// What one HTTP answer, or the lack of one, means; no I/O.
@Suite struct VerifyReceiptExchangeTests {
    typealias Step = VerifyReceiptExchange.Step

    func classify(
        _ status: Int, _ body: String, headers: [(name: String, value: String)] = [],
        from endpoint: VerifyReceiptEnvironment = .production
    ) -> Step {
        VerifyReceiptExchange.classify(
            HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), from: endpoint,
            bundleID: "com.example.game", now: Date(timeIntervalSince1970: 1_445_412_400))
    }

    @Test func valid_creditsTheTransactions_withTheAnswersEnvironment() {
        guard case .outcome(.valid(let environment, let transactions)) = classify(200, RecordedAnswers.subscription)
        else {
            Issue.record("expected valid")
            return
        }
        #expect(environment == "Sandbox")
        #expect(transactions.count == 2)
    }

    @Test func valid_withoutEnvironment_takesTheEndpoints() {
        let body = #"{"status": 0, "receipt": {"bundle_id": "com.example.game", "in_app": []}}"#
        #expect(classify(200, body, from: .sandbox) == .outcome(.valid(environment: "Sandbox", transactions: [])))
    }

    @Test func valid_ofAnotherApp_isBundleMismatch() {
        let body = RecordedAnswers.consumables.replacingOccurrences(of: "com.example.game", with: "com.thief.app")
        #expect(classify(200, body) == .outcome(.rejected(reason: "bundle_mismatch")))
        let noBundle = #"{"status": 0, "receipt": {"in_app": []}}"#
        #expect(classify(200, noBundle) == .outcome(.rejected(reason: "bundle_mismatch")))
    }

    @Test func valid_ofAnotherAppOfThePipeline_isRefusedNamingIt() {
        let body = RecordedAnswers.consumables.replacingOccurrences(of: "com.example.game", with: "com.example.racer")
        let racer = OtherApps(["com.example.racer": "racer"])
        let step = VerifyReceiptExchange.classify(
            HTTPResponse(status: 200, headers: [], body: Array(body.utf8)), from: .production,
            bundleID: "com.example.game", otherApps: racer)
        #expect(step == .outcome(.rejected(reason: "app_mismatch: belongs to racer")))
        // A bundle id no app of the pipeline names is still bundle_mismatch.
        let thief = RecordedAnswers.consumables.replacingOccurrences(of: "com.example.game", with: "com.thief.app")
        let other = VerifyReceiptExchange.classify(
            HTTPResponse(status: 200, headers: [], body: Array(thief.utf8)), from: .production,
            bundleID: "com.example.game", otherApps: racer)
        #expect(other == .outcome(.rejected(reason: "bundle_mismatch")))
    }

    @Test func valid_withoutReceipt_isTransient() {
        #expect(classify(200, #"{"status": 0}"#) == .outcome(.transient(reason: "invalid_response_body")))
    }

    @Test func redirects_sendTheReceiptToTheOtherEndpoint() {
        #expect(classify(200, #"{"status": 21007}"#) == .redirect(to: .sandbox, status: .sandboxReceipt))
        #expect(
            classify(200, #"{"status": 21008}"#, from: .sandbox)
                == .redirect(to: .production, status: .productionReceipt))
    }

    @Test func appleStatuses_becomeOutcomes() {
        #expect(classify(200, #"{"status": 21003}"#) == .outcome(.rejected(reason: "apple_status_21003")))
        #expect(classify(200, #"{"status": 21005}"#) == .outcome(.transient(reason: "apple_status_21005")))
        #expect(
            classify(200, RecordedAnswers.retryableInternalError)
                == .outcome(.transient(reason: "apple_status_21199")))
        #expect(
            classify(200, #"{"status": 21101, "is-retryable": false}"#)
                == .outcome(.rejected(reason: "apple_status_21101")))
    }

    @Test(arguments: ["", "<html>Service Unavailable</html>", "{}", #"{"status": null}"#])
    func okWithoutAnAnswer_isTransient(body: String) {
        #expect(classify(200, body) == .outcome(.transient(reason: "invalid_response_body")))
    }

    @Test func httpErrors_areTransient_andHonourRetryAfter() {
        #expect(
            classify(429, "slow down", headers: [("Retry-After", "7")])
                == .outcome(.transient(reason: "http_429", retryAfter: .seconds(7))))
        #expect(classify(429, "") == .outcome(.transient(reason: "http_429")))
        #expect(
            classify(503, "", headers: [("retry-after", " 120 ")])
                == .outcome(.transient(reason: "http_503", retryAfter: .seconds(120))))
        #expect(classify(500, "") == .outcome(.transient(reason: "http_500")))
        // An endpoint that is not verifyReceipt at all: the receipt is not at fault
        #expect(classify(404, "not found") == .outcome(.transient(reason: "http_404")))
        #expect(classify(301, "") == .outcome(.transient(reason: "http_301")))
    }

    @Test func retryAfter_readsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
        #expect(VerifyReceiptExchange.retryAfterDuration("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(80))
        #expect(VerifyReceiptExchange.retryAfterDuration("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == nil)
        #expect(VerifyReceiptExchange.retryAfterDuration("0", now: now) == .seconds(0))
        #expect(VerifyReceiptExchange.retryAfterDuration("-5", now: now) == nil)
        #expect(VerifyReceiptExchange.retryAfterDuration("soon", now: now) == nil)
    }

    @Test func clientErrors_areTransient_withTheirKind() {
        let cases: [(HTTPClientError.Code, String)] = [
            (.timeout, "timeout"), (.connectionRefused, "connection_refused"), (.dnsFailure, "dns_failure"),
            (.tls, "tls_failure"), (.transport, "transport_failure"), (.invalidRequest, "invalid_request"),
            (.responseTooLarge, "response_too_large"), (.cancelled, "cancelled"), (.shutdown, "client_shutdown"),
        ]
        for (code, reason) in cases {
            #expect(VerifyReceiptExchange.classify(HTTPClientError(code, message: "x")) == .transient(reason: reason))
        }
    }
}
