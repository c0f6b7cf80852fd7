import Database
import Foundation
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Console
@testable import EndToEndSupport

/// The console's forms are taken whole or not at all (issue 25): an adjustment of
/// `amount=1000` cut after `amount=10` by a closing client credited 10 coins, and a cut
/// login counted as a failure. Over a real socket to the intake of a running pipeline.
extension ConsoleTests {
    /// `form` as the browser encodes it, in this order: the cut falls where the test says.
    static func encoded(_ form: KeyValuePairs<String, String>) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
    }

    /// Sends `body` up to the end of `upTo` (included) with the whole body's
    /// `Content-Length`, then closes, or half-closes and returns the answer.
    func sendCut(
        _ path: String, body: String, upTo marker: String, cookie: String? = nil, halfClose: Bool,
        _ pipeline: PipelineHarness
    ) async throws -> RawHTTPConnection.Response? {
        let cut = try #require(body.range(of: marker)?.upperBound)
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        let connection = try await RawHTTPConnection.connect(port: pipeline.intakePort)
        try await connection.send(head + body[..<cut])
        guard halfClose else {
            await connection.close()
            // Nothing can be answered; a handler that took the cut form would have acted by now.
            try await Task.sleep(for: .seconds(1))
            return nil
        }
        try await connection.finishSending()
        let response = await connection.response()
        await connection.close()
        return response
    }

    @Test func anAdjustmentCutShortByItsClientChangesNothing() async throws {
        try await PipelineHarness.run(.sqlite, console: Self.desk) { pipeline in
            // Given a player with 100 coins and an adjuster on the account's page
            let data = pipeline.receipt(transactions: [(id: "cut-t1", product: "com.example.coins100")])
            let (_, receiptID) = try await pipeline.submit(account: "cut-player", receiptData: data)
            #expect(try await pipeline.finalStatus(try #require(receiptID))["status"] as? String == "credited")
            let alice = try await logIn(pipeline)
            let page = try await get("/console/accounts/cut-player", cookie: alice, pipeline).bodyString
            let key = try #require(page.range(of: "name=\"key\" value=\"")).upperBound
            let body = Self.encoded([
                "csrf": try csrf(in: page), "key": String(page[key...].prefix(36)), "currency": "coins",
                "reason": "goodwill", "amount": "1000",
            ])

            // When the grant of 1000 is cut after "amount=10", by a client that closes or half-closes
            _ = try await sendCut(
                "/console/accounts/cut-player/adjust", body: body, upTo: "amount=10", cookie: alice, halfClose: false,
                pipeline)
            let answered = try await sendCut(
                "/console/accounts/cut-player/adjust", body: body, upTo: "amount=10", cookie: alice, halfClose: true,
                pipeline)
            #expect(answered?.status == 400)

            // Then no coin moved and no adjustment is on the books
            #expect(try await pipeline.balance("cut-player") == 100)
            #expect(try await AdjustmentRepository(pipeline.database).adjustments(of: "cut-player").isEmpty)
            // And the whole form still grants 1000
            let whole = try await post(
                "/console/accounts/cut-player/adjust",
                form: [
                    "csrf": try csrf(in: page), "key": UUID().uuidString, "currency": "coins", "reason": "goodwill",
                    "amount": "1000",
                ], cookie: alice, pipeline)
            #expect(whole.status == 303)
            #expect(try await pipeline.balance("cut-player") == 1100)
        }
    }

    @Test func aLoginCutShortByItsClientIsNeitherASuccessNorAFailure() async throws {
        var console = Self.desk
        console.loginThrottle = .init(freeFailures: 2, firstDelay: .seconds(600))
        try await PipelineHarness.run(.sqlite, console: console) { pipeline in
            let body = Self.encoded(["name": "alice", "secret": Self.secret, "then": "/console"])

            // Given more cut logins than the throttle lets fail freely (2), each cut inside the secret
            for _ in 0..<3 {
                _ = try await sendCut(
                    "/console/login", body: body, upTo: "secret=alice", halfClose: false, pipeline)
            }
            // And one cut after the whole secret, half-closed so that it can be answered
            let cut = try await sendCut(
                "/console/login", body: body, upTo: Self.secret, halfClose: true, pipeline)

            // Then the cut login got no session
            #expect(cut?.status == 400)
            #expect(cut?.headers["set-cookie"] == nil)
            // And none counted as a failure: the whole login is not throttled
            let whole = try await post("/console/login", form: ["name": "alice", "secret": Self.secret], pipeline)
            #expect(whole.status == 303)
        }
    }
}
