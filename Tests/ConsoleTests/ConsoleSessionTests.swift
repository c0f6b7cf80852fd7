import Foundation
import PipelineTesting
import Testing

@testable import Console
@testable import EndToEndSupport

/// Issue 25, findings 5 and 7 and the login page, against the console on a live socket:
/// sessions are random and end one by one; a login from another site is refused; a browser
/// without a session is sent to the login page.
@Suite struct ConsoleSessionTests {
    @Test func twoLoginsInOneSecondAreTwoSessionsAndLoggingOutOneKeepsTheOther() async throws {
        // The console's clock stands still: every login is in the same second
        let second = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        try await LiveConsole.run(now: { second }) { console in
            // Given the same operator logged in twice within one second (two browsers): the
            // same name and expiry second, which was all a cookie held before
            var cookies: [String] = []
            for _ in 0..<2 { cookies.append(try #require(LiveConsole.cookie(try await console.logIn()))) }
            #expect(Self.expirySecond(cookies[0]) == Self.expirySecond(cookies[1]))

            // Then they got two cookies, each with 128 random bits of its own
            #expect(cookies[0] != cookies[1])
            for cookie in cookies {
                let id = try #require(cookie.split(separator: ".").dropLast().last)
                #expect(id.count == 22)
            }

            // When the first logs out, with its page's CSRF token
            let page = try await console.send("GET", "/console/receipts", cookie: cookies[0])
            let csrf = try #require(LiveConsole.csrf(page))
            #expect(
                try await console.send("POST", "/console/logout", form: ["csrf": csrf], cookie: cookies[0])?.status
                    == 303)

            // Then the first session is over and the second still opens pages and posts
            #expect(try await console.send("GET", "/console/receipts", cookie: cookies[0])?.status == 401)
            let second = try await console.send("GET", "/console/receipts", cookie: cookies[1])
            #expect(second?.status == 200)
            let secondCSRF = try #require(LiveConsole.csrf(second))
            #expect(secondCSRF != csrf)
            let post = try await console.send(
                "POST", "/console/webhooks/evt_none/replay", form: ["csrf": secondCSRF], cookie: cookies[1])
            #expect(post?.status == 404)
        }
    }

    /// `iap_console=name.expiry.id.signature` → `expiry`.
    static func expirySecond(_ cookie: String) -> Substring? {
        let parts = cookie.split(separator: ".")
        return parts.count >= 4 ? parts[parts.count - 3] : nil
    }

    @Test func sessionIDsDoNotRepeat() async throws {
        try await LiveConsole.run { console in
            var ids: Set<String> = []
            for _ in 0..<50 {
                let cookie = try #require(LiveConsole.cookie(try await console.logIn()))
                ids.insert(String(try #require(cookie.split(separator: ".").dropLast().last)))
            }
            #expect(ids.count == 50)
        }
    }

    @Test(arguments: [
        ["Origin": "https://evil.example"], ["Origin": "http://127.0.0.1.evil.example"],
        ["Origin": "http://127.0.0.1:8081"], ["Referer": "https://evil.example/console/login"],
        ["Origin": "null", "Referer": "https://evil.example/"],
    ])
    func aLoginFromAnotherSiteIs403WithoutASession(headers: [String: String]) async throws {
        try await LiveConsole.run { console in
            // Given the right name and secret, posted from another site
            let response = try await console.send(
                "POST", "/console/login", form: ["name": "alice", "secret": LiveConsole.secret], headers: headers)

            // Then it is refused, clearly, and no session is made
            #expect(response?.status == 403)
            #expect(response?.body.contains("Login refused: this login was sent from another site") == true)
            #expect(LiveConsole.cookie(response)?.hasPrefix(ConsoleSession.cookieName + "=") == false)
            #expect(console.lines.all.contains { $0.contains("login refused, cross-site") })
        }
    }

    @Test func aSameOriginLoginIsTakenAsBrowsersSendIt() async throws {
        try await LiveConsole.run { console in
            #expect(try await console.logIn(origin: "http://127.0.0.1")?.status == 303)
            // Behind a TLS proxy the browser says https; Host is the same
            #expect(try await console.logIn(origin: "https://127.0.0.1")?.status == 303)
            let referred = try await console.send(
                "POST", "/console/login", form: ["name": "alice", "secret": LiveConsole.secret],
                headers: ["Referer": "http://127.0.0.1/console/login"])
            #expect(referred?.status == 303)
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", "127.0.0.1:8080", true), ("https://console.example.com", "console.example.com", true),
        ("https://Console.Example.com/console/login?x=1", "console.example.com", true),
        ("https://console.example.com:443", "console.example.com", true),
        ("http://console.example.com", "console.example.com:80", true),
        ("https://console.example.com", "console.example.com:8443", false),
        ("https://evil.example", "console.example.com", false),
        ("https://console.example.com.evil.example", "console.example.com", false),
        ("http://[::1]:8080", "[::1]:8080", true), ("not a url", "127.0.0.1", false),
    ])
    func sameOriginComparesHostAndPortNotTheScheme(url: String, host: String, same: Bool) {
        #expect(LoginForgeryGuard.sameOrigin(url, host: host) == same)
    }

    @Test func aLoginNamingNoOriginNeedsTheFormsToken() async throws {
        try await LiveConsole.run { console in
            let credentials = ["name": "alice", "secret": LiveConsole.secret]
            // Without Origin or Referer, and without the form's token: refused
            let bare = try await console.send("POST", "/console/login", form: credentials)
            #expect(bare?.status == 403)
            #expect(bare?.body.contains("does not carry the login form") == true)
            // A token without its cookie, or from another form's cookie: refused
            let form = try #require(try await console.loginForm())
            let other = try #require(try await console.loginForm())
            var withToken = credentials
            withToken["login_csrf"] = form.token
            #expect(try await console.send("POST", "/console/login", form: withToken)?.status == 403)
            #expect(
                try await console.send("POST", "/console/login", form: withToken, cookie: other.cookie)?.status == 403)
            // `Origin: null` (a sandboxed frame) counts as naming none
            let null = try await console.send(
                "POST", "/console/login", form: credentials, cookie: form.cookie, headers: ["Origin": "null"])
            #expect(null?.status == 403)
            // The form's token with its cookie: logged in
            let good = try await console.send("POST", "/console/login", form: withToken, cookie: form.cookie)
            #expect(good?.status == 303)
            #expect(LiveConsole.cookie(good)?.hasPrefix(ConsoleSession.cookieName + "=") == true)
        }
    }

    @Test func aBrowserWithoutASessionIsSentToTheLoginPageAndScriptsGet401() async throws {
        try await LiveConsole.run { console in
            let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
            for path in ["/console", "/console/dead", "/console/accounts/p1"] {
                let browser = try await console.send("GET", path, headers: ["Accept": browserAccept])
                #expect(browser?.status == 303, "\(path)")
                #expect(browser?.headers["location"] == "/console/login")
                let script = try await console.send("GET", path, headers: ["Accept": "*/*"])
                #expect(script?.status == 401, "\(path)")
                #expect(script?.body.contains("name=\"secret\"") == true)
            }
            // A post without a session is still 401: nothing to redirect to
            let post = try await console.send(
                "POST", "/console/groups/replay", form: ["group": "x", "csrf": "x"], headers: ["Accept": browserAccept])
            #expect(post?.status == 401)
        }
    }

    @Test func aControlCharacterInAConsoleFieldIsRefusedNamingIt() async throws {
        try await LiveConsole.run { console in
            let cookie = try #require(LiveConsole.cookie(try await console.logIn()))
            let csrf = try #require(
                LiveConsole.csrf(try await console.send("GET", "/console/receipts", cookie: cookie)))
            let discard = try await console.send(
                "POST", "/console/dead/dl_x/discard", form: ["csrf": csrf, "reason": "abc\u{0}def"], cookie: cookie)
            #expect(discard?.status == 400)
            #expect(discard?.body.contains("The field “reason” holds a control character") == true)
            let search = try await console.send("GET", "/console/accounts?q=p1%00", cookie: cookie)
            #expect(search?.status == 400)
            #expect(search?.body.contains("The field “q”") == true)
            let address = try await console.send("GET", "/console/accounts/p1%00", cookie: cookie)
            #expect(address?.status == 400)
            #expect(address?.body.contains("The field “address”") == true)
        }
    }
}
