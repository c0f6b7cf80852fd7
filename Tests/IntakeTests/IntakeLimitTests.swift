import Database
import Foundation
import GooglePlay
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Intake

/// Limits on what a caller may send: rate limits, strict JSON, the notification endpoint's
/// size cap and header check, and token rotation through a file. Refusals change nothing.
@Suite struct IntakeLimitTests {
    static let receipt = Data("a real receipt".utf8).base64EncodedString()

    /// A JWS whose header says what Apple's say (ES256, an x5c of three certificates) but
    /// that no one signed: issue 25's forgery.
    static func notificationJWS(header: String = #"{"alg":"ES256","x5c":["AAAA","BBBB","CCCC"]}"#, payload: String)
        -> String
    {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return base64URL(header) + "." + base64URL(payload) + ".c2lnbmF0dXJl"
    }

    @Test func requestsBeyondATokensRateLimitAre429WithRetryAfterAndOtherTokensPass() async throws {
        let other = "other-token-0123456789"
        try await LiveIntake.run({
            $0.rateLimit = RateLimit(perSecond: 1.0 / 3600, burst: 3)
            $0.tokens = APITokens(unchecked: [LiveIntake.token, other])
        }) { intake in
            // Given a token that has used its burst
            for _ in 0..<3 { #expect(try await intake.request("GET", "/v1/receipts/r1")?.status == 404) }

            // Then the next request is 429 with Retry-After, in the JSON shape
            let limited = try await intake.request("GET", "/v1/receipts/r1")
            #expect(limited?.status == 429)
            #expect(LiveIntake.errorCode(limited) == "rate_limited")
            #expect((limited?.headers["retry-after"]).flatMap { Int($0) }.map { $0 >= 1 } == true)
            // And a POST is refused before it stores anything
            let body = #"{"account_id": "p", "receipt_data": "\#(Self.receipt)"}"#
            #expect(try await intake.request("POST", "/v1/receipts", body: body)?.status == 429)
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
            // While another backend's token has a bucket of its own
            #expect(try await intake.request("POST", "/v1/receipts", body: body, token: other)?.status == 202)
        }
    }

    @Test func appleNotificationsBeyondTheAddressLimitAre429AndStoreNothing() async throws {
        try await LiveIntake.run({ $0.notificationRateLimit = RateLimit(perSecond: 1.0 / 3600, burst: 2) }) { intake in
            var statuses: [Int?] = []
            for _ in 0..<3 {
                let body = LiveIntake.signedNotificationBody()
                statuses.append(
                    try await intake.request("POST", "/v1/apple/notifications", body: body, token: nil)?.status)
            }
            #expect(statuses == [200, 200, 429])
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).count == 2)
        }
    }

    @Test(arguments: [
        (#"{"account_id": "p", "account_id": "q", "receipt_data": "YQ=="}"#, "duplicate_key"),
        (#"{"account_id": "p", "account_\u0069d": "q", "receipt_data": "YQ=="}"#, "duplicate_key"),
        (#"{"account_id": "p", "receipt_data": "YQ==",}"#, "invalid_json"),
        (#"{"account_id": "p", "receipt_data": "YQ==", "product_id": [1,]}"#, "invalid_json"),
        (#"{"account_id": "p", "receipt_data": "YQ=="} x"#, "invalid_json"),
        (
            #"{"account_id": "p", "receipt_data": "YQ==", "order_id": "#
                + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}", "invalid_json"
        ),
    ])
    func bodiesThatAreNotStrictJSONAre400AndStoreNothing(json: String, code: String) async throws {
        try await LiveIntake.run { intake in
            let response = try await intake.request("POST", "/v1/receipts", body: json)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == code)
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func aNotificationWithDuplicateKeysIsRefused() async throws {
        try await LiveIntake.run { intake in
            let jws = Self.notificationJWS(payload: "{}")
            let body = #"{"signedPayload": "\#(jws)", "signedPayload": "\#(jws)"}"#
            let response = try await intake.request("POST", "/v1/apple/notifications", body: body, token: nil)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "duplicate_key")
        }
    }

    @Test(arguments: [
        #"{"alg":"ES256"}"#,
        #"{"alg":"none","x5c":["AAAA","BBBB","CCCC"]}"#,
        #"{"alg":"ES256","x5c":["AAAA"]}"#,
        #"{"alg":"ES256","x5c":["AAAA","BBBB","not base64!"]}"#,
        "not json",
    ])
    func aNotificationWithoutAnAppleLikeHeaderIsRefusedBeforeStoring(header: String) async throws {
        try await LiveIntake.run { intake in
            let body = #"{"signedPayload": "\#(Self.notificationJWS(header: header, payload: "{}"))"}"#
            let response = try await intake.request("POST", "/v1/apple/notifications", body: body, token: nil)
            #expect(response?.status == 400)
            #expect(LiveIntake.errorCode(response) == "invalid_signed_payload")
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    /// Issue 25, finding 6: one address stored 1,300 forged notifications (70 MB) in 25 s
    /// under the rate limit. Now none is stored, and a signed one still is.
    @Test func forgedNotificationsUnderTheRateLimitStoreNothing() async throws {
        try await LiveIntake.run { intake in
            // Given one address sending forged notifications of ~53 KiB, each one new
            var statuses: [Int: Int] = [:]
            for index in 0..<100 {
                let jws = Self.notificationJWS(
                    payload: #"{"n":\#(index),"pad":""#
                        + String(repeating: "x", count: 40 * 1024) + #""}"#)
                let response = try await intake.request(
                    "POST", "/v1/apple/notifications", body: #"{"signedPayload": "\#(jws)"}"#, token: nil)
                statuses[response?.status ?? 0, default: 0] += 1
                #expect(LiveIntake.errorCode(response) == "invalid_signed_payload")
            }

            // Then every one is refused and no row is stored
            #expect(statuses == [400: 100])
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 200).isEmpty)
            // While a notification the stub store signed is stored
            let signed = try await intake.request(
                "POST", "/v1/apple/notifications", body: LiveIntake.signedNotificationBody(), token: nil)
            #expect(signed?.status == 200)
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 200).count == 1)
        }
    }

    @Test func aNotificationBodyOver64KiBIs413() async throws {
        try await LiveIntake.run { intake in
            let jws = Self.notificationJWS(payload: String(repeating: "x", count: 70 * 1024))
            let response = try await intake.request(
                "POST", "/v1/apple/notifications", body: #"{"signedPayload": "\#(jws)"}"#, token: nil)
            #expect(response?.status == 413)
            #expect(LiveIntake.errorCode(response) == "payload_too_large")
            await #expect(try IntakeRepository(intake.database).unpublished(limit: 10).isEmpty)
        }
    }

    @Test func tokensFromTheFileRotateWithoutARestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("tokens")
        let old = "old-token-0123456789abc"
        let new = "new-token-0123456789abc"
        try "# the backend\n\(old)\n".write(toFile: file, atomically: true, encoding: .utf8)
        try await LiveIntake.run({
            $0.tokens = try APITokens(tokens: [], file: file, recheckInterval: .zero)
        }) { intake in
            // Given the file's token works and another does not
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: old)?.status == 404)
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: new)?.status == 401)

            // When the new token is added, then the old one removed
            try "\(old)\n\(new)\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: new)?.status == 404)
            try "\(new)\n".write(toFile: file, atomically: true, encoding: .utf8)

            // Then only the new one works
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: old)?.status == 401)
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: new)?.status == 404)

            // And a broken file keeps the tokens read last
            try "short\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try await intake.request("GET", "/v1/receipts/r1", token: new)?.status == 404)
        }
    }

    @Test func settingsNameTheirProblemsWithoutRepeatingATokenFromTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("tokens")
        try "too-short-token\n".write(toFile: file, atomically: true, encoding: .utf8)
        let env = EnvironmentReader(["IAP_API_TOKENS_FILE": file])
        #expect(throws: SettingError.self) { try IntakeConfiguration(environment: env, apps: nil) }
        do {
            _ = try IntakeConfiguration(environment: env, apps: nil)
        } catch {
            #expect(error.variable == "IAP_API_TOKENS_FILE")
            #expect(!error.description.contains("too-short-token"))
        }
        let missing = EnvironmentReader(["IAP_API_TOKENS_FILE": directory.file("absent")])
        #expect(throws: SettingError.self) { try IntakeConfiguration(environment: missing, apps: nil) }
        let badLimit = EnvironmentReader(["IAP_API_TOKENS": "a-token-of-16-chars", "IAP_RATE_LIMIT": "fast"])
        #expect(throws: SettingError.self) { try IntakeConfiguration(environment: badLimit, apps: nil) }
    }

    @Test func googlePushSettingsComeTogetherAndNameWhatIsMissing() throws {
        let token = ["IAP_API_TOKENS": "a-token-of-16-chars"]
        #expect(try GooglePlayStore(environment: EnvironmentReader(token))?.push == nil)
        let both = try GooglePlayStore(
            environment: EnvironmentReader(
                token.merging([
                    "IAP_GOOGLE_PUSH_AUDIENCE": "https://iap.example.com/v1/google/notifications",
                    "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": "push@p.iam.gserviceaccount.com",
                ]) { $1 }))
        #expect(both?.push?.audience == "https://iap.example.com/v1/google/notifications")
        #expect(both?.push?.certsURL == "https://www.googleapis.com/oauth2/v3/certs")
        let cases: [([String: String], String)] = [
            (["IAP_GOOGLE_PUSH_AUDIENCE": "https://a"], "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"),
            (["IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": "push@p.iam.gserviceaccount.com"], "IAP_GOOGLE_PUSH_AUDIENCE"),
            (
                ["IAP_GOOGLE_PUSH_AUDIENCE": "https://a", "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": "not-an-address"],
                "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT"
            ),
            (
                [
                    "IAP_GOOGLE_PUSH_AUDIENCE": "https://a", "IAP_GOOGLE_PUSH_SERVICE_ACCOUNT": "p@x",
                    "IAP_GOOGLE_CERTS_URL": "ftp://keys",
                ], "IAP_GOOGLE_CERTS_URL"
            ),
        ]
        for (settings, variable) in cases {
            do {
                _ = try GooglePlayStore(environment: EnvironmentReader(token.merging(settings) { $1 }))
                Issue.record("\(settings) was taken")
            } catch {
                #expect(error.variable == variable, "\(settings): \(error)")
            }
        }
    }

    @Test func googleJobSettingsAreReadAndBadOnesNamed() throws {
        // Unset: the voided list every 15 minutes, answers with a preference
        let unset = try #require(try GooglePlayStore(environment: EnvironmentReader([:])))
        #expect(unset.jobs.voidedInterval == .seconds(900) && unset.jobs.refundReviews?.prefers == true)
        let set = try #require(
            try GooglePlayStore(
                environment: EnvironmentReader([
                    "IAP_GOOGLE_VOIDED_INTERVAL_SECONDS": "120", "IAP_CONSUMPTION_REFUND_PREFERENCE": "none",
                ])))
        #expect(set.jobs.voidedInterval == .seconds(120) && set.jobs.refundReviews?.prefers == false)
        for (variable, value) in [
            ("IAP_GOOGLE_VOIDED_INTERVAL_SECONDS", "30"), ("IAP_GOOGLE_VOIDED_INTERVAL_SECONDS", "fast"),
            ("IAP_CONSUMPTION_REFUND_PREFERENCE", "maybe"),
        ] {
            do {
                _ = try GooglePlayStore(environment: EnvironmentReader([variable: value]))
                Issue.record("\(variable)=\(value) was taken")
            } catch {
                #expect(error.variable == variable && "\(error)".contains(value), "\(error)")
            }
        }
    }
}
