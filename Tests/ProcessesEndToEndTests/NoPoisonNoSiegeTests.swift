import Database
import Foundation
import HTTPClient
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore
import Testing

@testable import EndToEndSupport

/// Issue 25 ("No poison, no siege"), each finding reproduced as it was reported, against
/// `iap intake`, `iap validator` and `iap fulfiller` as processes, the stub store as Apple,
/// and their SQLite file; each one now closed. One at a time: each test starts three processes.
@Suite(.serialized) struct NoPoisonNoSiegeTests {
    static let operators = "alice:alice-secret-0123456789"

    /// Runs the stages as processes, trusting the stub's StoreKit root as `iap up` does.
    func withPipeline(_ body: (ProcessPipeline, String) async throws -> Void) async throws {
        try await ProcessPipeline.run(stub: StubStoreConfiguration(bundleID: PipelineHarness.bundleID)) { pipeline in
            let root = pipeline.directory.file("stub-root.der")
            try Data(pipeline.stub.storeKit.rootDER).write(to: URL(fileURLWithPath: root))
            let settings = [
                "IAP_APPLE_ROOT_CA": root, "IAP_APPSTORE_ENVIRONMENT": "Sandbox",
                "IAP_CONSOLE_OPERATORS": Self.operators,
            ]
            for stage in ["intake", "validator", "fulfiller"] { _ = try pipeline.start([stage], environment: settings) }
            let intake = "http://127.0.0.1:\(pipeline.intakePort)"
            #expect(await pipeline.waitUntilServing(intake + "/healthz"))
            try await body(pipeline, intake)
        }
    }

    func call(
        _ pipeline: ProcessPipeline, _ method: HTTPClient.HTTPRequest.Method, _ url: String, json: String? = nil,
        token: Bool = true, headers: [(name: String, value: String)] = []
    ) async throws -> (status: Int, body: [String: Any], headers: HTTPClient.HTTPResponse) {
        var all = headers
        if token { all.append((name: "Authorization", value: "Bearer \(ProcessPipeline.token)")) }
        if json != nil { all.append((name: "Content-Type", value: "application/json")) }
        let response = try await pipeline.client.execute(
            HTTPClient.HTTPRequest(
                method: method, url: url, headers: all, body: json.map { Array($0.utf8) },
                timeout: .seconds(10)))
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        return (response.status, body, response)
    }

    static func code(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["code"] as? String }

    @Test func finding4_NULInAProductIDOrACancelReasonIsRefusedNotTruncated() async throws {
        try await withPipeline { pipeline, intake in
            // A product_id "a\u0000b" was stored as "a"
            let receipt = pipeline.receipt(transaction: "nul-1")
            let submitted = try await call(
                pipeline, .post, intake + "/v1/receipts",
                json: #"{"account_id": "nul", "receipt_data": "\#(receipt)", "product_id": "a\u0000b"}"#)
            #expect(submitted.status == 400)
            #expect(Self.code(submitted.body) == "invalid_product_id")
            #expect(try await ReceiptRepository(pipeline.database()).receiptStatusCounts().values.reduce(0, +) == 0)

            // A cancel reason "abc\0def" was stored as "abc"
            let order = try await call(
                pipeline, .post, intake + "/v1/orders",
                json: #"{"account_id": "nul", "product_id": "com.example.coins100"}"#)
            let id = try #require(order.body["order_id"] as? String)
            let cancel = try await call(
                pipeline, .post, intake + "/v1/orders/\(id)/cancel", json: #"{"reason": "abc\u0000def"}"#)
            #expect(cancel.status == 400)
            #expect(Self.code(cancel.body) == "invalid_reason")
            let after = try await call(pipeline, .get, intake + "/v1/orders/\(id)")
            #expect(after.body["status"] as? String == "open", "\(after.status) \(after.body)")
        }
    }

    @Test func finding6_forgedNotificationsStoreNothingAndASignedOneIsAppliedEndToEnd() async throws {
        try await withPipeline { pipeline, intake in
            // Forged: ES256 and x5c ["AAAA","AAAA","AAAA"], ~53 KiB each, one address, under the rate limit
            func base64URL(_ text: String) -> String {
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            }
            let header = base64URL(#"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA"]}"#)
            var refused = 0
            for index in 0..<100 {
                let payload = base64URL(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: 40 * 1024))"}"#)
                let answer = try await call(
                    pipeline, .post, intake + "/v1/apple/notifications",
                    json: #"{"signedPayload": "\#(header).\#(payload).c2ln"}"#, token: false)
                if answer.status == 400, Self.code(answer.body) == "invalid_signed_payload" { refused += 1 }
            }
            #expect(refused == 100)
            let database = try pipeline.database()
            #expect(try await ReceiptRepository(database).notificationStatusCounts().values.reduce(0, +) == 0)

            // A notification the stub store signs, posted as Apple posts it: stored, verified, applied
            let signed = pipeline.stub.storeKit.signNotification(type: .test, transaction: nil)
            #expect(try await pipeline.stub.storeKit.send(signed, to: intake + "/v1/apple/notifications") == 200)
            #expect(
                await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                    (try? await ReceiptRepository(database).notificationStatusCounts()[.applied, default: 0]) == 1
                })
        }
    }

    @Test func aVerifyAnswerWithQuantity0IsRefusedWithAReasonNotCredited() async throws {
        try await withPipeline { pipeline, intake in
            // The stub answers this receipt with quantity "0", as a faulty endpoint might
            let receipt = pipeline.stub.issue(
                StubReceipt(
                    bundleID: PipelineHarness.bundleID,
                    transactions: [
                        StubReceipt.Transaction(transactionID: "q0-1", productID: "com.example.coins100", quantity: 0)
                    ]))
            let (status, id) = try await pipeline.submit(account: "q0", receiptData: receipt)
            #expect(status == 202)
            let receiptID = try #require(id)
            let database = try pipeline.database()
            #expect(
                await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                    (try? await ReceiptRepository(database).receipt(id: receiptID))?.status.isFinal == true
                })
            let ended = try #require(try await ReceiptRepository(database).receipt(id: receiptID))
            #expect(ended.status != .credited)
            #expect(ended.reason?.contains("quantity 0 is not a positive count") == true, "\(ended.reason ?? "")")
            #expect(try await LedgerRepository(database).account(id: "q0")?.balances["coins"] ?? 0 == 0)
        }
    }

    @Test func consentForAnUnknownAccountIs404() async throws {
        try await withPipeline { pipeline, intake in
            let unknown = try await call(
                pipeline, .put, intake + "/v1/accounts/nobody/consumption-consent", json: #"{"consented": true}"#)
            #expect(unknown.status == 404)
            #expect(Self.code(unknown.body) == "not_found")
            #expect(try await LedgerRepository(pipeline.database()).account(id: "nobody") == nil)
        }
    }

    @Test func findings5And7_consoleSessionsAreOwnAndCrossSiteLoginsRefused() async throws {
        try await withPipeline { pipeline, intake in
            let form = [(name: "Content-Type", value: "application/x-www-form-urlencoded")]
            let credentials = Array("name=alice&secret=alice-secret-0123456789".utf8)
            func logIn(origin: String) async throws -> HTTPClient.HTTPResponse {
                try await pipeline.client.execute(
                    HTTPClient.HTTPRequest(
                        method: .post, url: intake + "/console/login",
                        headers: form + [(name: "Origin", value: origin)],
                        body: credentials, timeout: .seconds(10)))
            }
            // Finding 7: a login posted with Origin: https://evil.example
            let evil = try await logIn(origin: "https://evil.example")
            #expect(evil.status == 403)
            #expect(evil.header("Set-Cookie")?.hasPrefix("iap_console=") != true)

            // Finding 5: two logins in one second, then one logs out
            let cookies = try await [logIn(origin: intake), logIn(origin: intake)].map { response in
                try #require(response.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            }
            #expect(cookies[0] != cookies[1])
            func page(_ cookie: String) async throws -> HTTPClient.HTTPResponse {
                try await pipeline.client.execute(
                    HTTPClient.HTTPRequest(
                        url: intake + "/console/receipts", headers: [(name: "Cookie", value: cookie)],
                        timeout: .seconds(10)))
            }
            let first = try await page(cookies[0]).bodyString
            let csrf = try #require(first.range(of: "name=\"csrf\" value=\"").map { first[$0.upperBound...] })
                .prefix { $0 != "\"" }
            let logout = try await pipeline.client.execute(
                HTTPClient.HTTPRequest(
                    method: .post, url: intake + "/console/logout",
                    headers: form + [(name: "Cookie", value: cookies[0]), (name: "Origin", value: intake)],
                    body: Array("csrf=\(csrf)".utf8), timeout: .seconds(10)))
            #expect(logout.status == 303)
            #expect(try await page(cookies[0]).status == 401)
            #expect(try await page(cookies[1]).status == 200)

            // And a browser without a session is sent to the login page, a script gets 401
            let browser = try await pipeline.client.execute(
                HTTPClient.HTTPRequest(
                    url: intake + "/console", headers: [(name: "Accept", value: "text/html")], timeout: .seconds(10)))
            #expect(browser.status == 303)
            #expect(browser.header("Location") == "/console/login")
            #expect(try await pipeline.client.execute(HTTPClient.HTTPRequest(url: intake + "/console")).status == 401)
        }
    }

    @Test func aControlCharacterInACommandsOptionIsRefusedNamingIt() async throws {
        let (status, output) = try await IAPProcess.run(
            ["dlq", "discard", "dl_x", "--reason", "fraud\n2026-01-01 forged line"],
            environment: ["IAP_DB_PATH": "/nonexistent/iap.sqlite"])
        #expect(status == 64)
        #expect(output.contains("the value of --reason holds a control character"), "\(output)")
        let (equals, said) = try await IAPProcess.run(["dlq", "discard", "dl_x", "--reason=x", "--by=\u{1B}[2J"])
        #expect(equals == 64)
        #expect(said.contains("--by holds a control character"), "\(said)")
    }
}
