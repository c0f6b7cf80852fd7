import Broker
import Database
import DatabaseSQLite
import DeadLetters
import Foundation
import Hummingbird
import HummingbirdTesting
import Intake
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import Console
@testable import EndToEndSupport

/// The console's doors, against an intake serving it on a real socket: login backoff per
/// address and name (a stranger cannot slow an operator's login), logout that ends the
/// session server-side, the Secure cookie, and failed-login logging
/// that an attacker's input cannot forge.
@Suite struct ConsoleDoorsTests {
    static let secret = LiveConsole.secret

    @Test func wrongGuessesForAnOperatorFromOneAddressNeverDelayHerOwnLoginFromAnother() async throws {
        try await LiveConsole.run({ $0.loginThrottle = .init(freeFailures: 2, firstDelay: .seconds(600)) }) { console in
            // Given a stranger at 127.0.0.2 guessing alice's secret, far past the free failures
            for _ in 0..<8 {
                let guess = try await console.logIn(secret: "wrong-secret-000000000", from: "127.0.0.2")
                #expect(guess?.status == 401 || guess?.status == 429)
            }

            // Then the stranger waits, even with the right secret, which is not even checked
            let refused = try await console.logIn(from: "127.0.0.2")
            #expect(refused?.status == 429)
            #expect((refused?.headers["retry-after"]).flatMap { Int($0) }.map { $0 > 60 } == true)
            #expect(LiveConsole.cookie(refused)?.hasPrefix(ConsoleSession.cookieName + "=") == false)

            // And alice, from her own address, logs in at once
            let own = try await console.logIn(from: "127.0.0.1")
            #expect(own?.status == 303)
            #expect(LiveConsole.cookie(own)?.hasPrefix(ConsoleSession.cookieName + "=") == true)
        }
    }

    @Test func oneAddressGuessingManyNamesWaitsWhileOthersLogIn() async throws {
        let policy = LoginThrottle.Policy(freeFailures: 5, freeFailuresPerAddress: 4, firstDelay: .seconds(600))
        try await LiveConsole.run({ $0.loginThrottle = policy }) { console in
            // Given five names guessed once each from 127.0.0.2: none past its own free failures
            for name in ["admin", "root", "ops", "alice", "bob"] {
                let guess = try await console.logIn(name: name, secret: "wrong-secret-000000000", from: "127.0.0.2")
                #expect(guess?.status == 401, "\(name)")
            }

            // Then that address waits for any name, alice's right secret included
            #expect(
                try await console.logIn(name: "carol", secret: "wrong-secret-000000000", from: "127.0.0.2")?.status
                    == 429)
            #expect(try await console.logIn(from: "127.0.0.2")?.status == 429)

            // And from elsewhere alice and bob log in
            #expect(try await console.logIn(from: "127.0.0.1")?.status == 303)
            #expect(
                try await console.logIn(name: "bob", secret: LiveConsole.readerSecret, from: "127.0.0.3")?.status == 303
            )
        }
    }

    /// Through the intake's router, without a socket.
    @Test func logoutEndsTheSessionServerSideWithItsCSRFToken() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let intake = try LiveConsole.intake(
            { _ in }, database: try SQLiteDatabase(path: directory.file("iap.sqlite")), lines: LiveConsole.LogLines())
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        try await Application(router: intake.router()).test(.router) { client in
            // Given a logged-in operator (no Origin here: the login form's token and cookie
            // vouch for the post) and the CSRF token of her pages
            let loginPage = try await client.execute(uri: "/console/login", method: .get) { $0 }
            let loginCookie = try #require(loginPage.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let loginHTML = String(buffer: loginPage.body)
            let tokenStart = try #require(loginHTML.range(of: "name=\"login_csrf\" value=\"")?.upperBound)
            let loginToken = String(loginHTML[tokenStart...].prefix { $0 != "\"" })
            var loginHeaders = form
            loginHeaders[.cookie] = loginCookie
            let login = try await client.execute(
                uri: "/console/login", method: .post, headers: loginHeaders,
                body: ByteBuffer(string: "name=alice&secret=\(Self.secret)&login_csrf=\(loginToken)")
            ) { $0 }
            #expect(login.status == .seeOther)
            let cookie = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            // The overview, though no broker connection runs here: its queue depths wait at most
            // two seconds and say the broker did not answer (the bound is only a guard against
            // waiting for ever: a loaded machine took 21 s)
            let asked = ContinuousClock.now
            let page = try await client.execute(uri: "/console", method: .get, headers: [.cookie: cookie]) { $0 }
            #expect(page.status == .ok)
            #expect(ContinuousClock.now - asked < .seconds(120))
            let html = String(buffer: page.body)
            #expect(html.contains("broker did not answer"))
            let start = try #require(html.range(of: "name=\"csrf\" value=\"")?.upperBound)
            let csrf = String(html[start...].prefix { $0 != "\"" })
            var withCookie = form
            withCookie[.cookie] = cookie

            // When she logs out
            let logout = try await client.execute(
                uri: "/console/logout", method: .post, headers: withCookie, body: ByteBuffer(string: "csrf=\(csrf)")
            ) {
                $0.status
            }
            #expect(logout == .seeOther)

            // Then the old cookie (kept by an attacker) no longer opens a page, nor posts with its CSRF token
            let after = try await client.execute(uri: "/console/receipts", method: .get, headers: [.cookie: cookie]) {
                $0.status
            }
            #expect(after == .unauthorized)
            let post = try await client.execute(
                uri: "/console/dead/dl_x/discard", method: .post, headers: withCookie,
                body: ByteBuffer(string: "csrf=\(csrf)&reason=x")
            ) { $0.status }
            #expect(post == .unauthorized)
        }
    }

    @Test func theSessionCookieIsSecureWhenConfigured() async throws {
        try await LiveConsole.run({ $0.secureCookie = true }) { console in
            let cookie = try #require(try await console.logIn()?.headers["set-cookie"])
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
        }
        try await LiveConsole.run { console in
            let cookie = try await console.logIn()?.headers["set-cookie"]
            #expect(cookie?.contains("Secure") == false)
        }
    }

    @Test(arguments: [
        ([:], false), (["IAP_HTTP_HOST": "0.0.0.0"], true), (["IAP_HTTP_HOST": "::1"], false),
        (["IAP_HTTP_HOST": "10.0.0.5", "IAP_CONSOLE_SECURE_COOKIE": "false"], false),
        (["IAP_CONSOLE_SECURE_COOKIE": "true"], true),
    ])
    func secureCookieIsOnUnlessTheIntakeListensOnLoopback(environment: [String: String], secure: Bool) throws {
        #expect(try ConsoleConfiguration.secureCookie(environment: EnvironmentReader(environment)) == secure)
    }

    @Test func aFailedLoginLogsTheNameBoundedAndANameWithControlCharactersIsRefused() async throws {
        try await LiveConsole.run { console in
            // Given a login whose name is long
            let name = "mallory<b>" + String(repeating: "x", count: 500)
            #expect(try await console.logIn(name: name, secret: "wrong-secret-000000000")?.status == 401)

            // Then one line was logged, bounded, without the secret
            let failed = try #require(console.lines.all.first { $0.contains("failed login") })
            #expect(failed.contains("mallory<b>"))
            #expect(failed.count < 400)
            #expect(!console.lines.all.contains { $0.contains("wrong-secret") })

            // And a name that forges a log line and drives the terminal is refused before any check, naming the field
            let forging = "mallory\n2026-01-01 critical: forged line\u{1B}[2J"
            let refused = try await console.logIn(name: forging, secret: "wrong-secret-000000000")
            #expect(refused?.status == 400)
            #expect(refused?.body.contains("The field “name” holds a control character") == true)
            #expect(!console.lines.all.contains { $0.contains("\n") || $0.contains("\u{1B}") })
        }
    }
}
