import Broker
import DeadLetters
import Foundation
import Hummingbird
import HummingbirdTesting
import Intake
import Logging
import PipelineCore
import PipelineTesting
import Store
import StoreSQLite
import Synchronization
import Testing

@testable import Console

/// The console's doors, against an intake serving it on a real socket: login backoff,
/// logout that ends the session server-side, the Secure cookie, and failed-login logging
/// that an attacker's input cannot forge.
@Suite struct ConsoleDoorsTests {
    static let secret = "alice-secret-0123456789"

    /// Records every log line's message and metadata, for checking what reached the logs.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }

        struct Handler: LogHandler {
            let sink: LogLines
            var logLevel: Logger.Level = .trace
            var metadata: Logger.Metadata = [:]
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let text =
                    "\(event.message) "
                    + (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
                sink.lines.withLock { $0.append(text) }
            }
        }
    }

    /// An intake serving the console over `database`; `configure` adjusts the console.
    func consoleIntake(
        _ configure: (inout ConsoleConfiguration) -> Void, database: SQLiteDatabase, lines: LogLines
    ) throws -> Intake {
        let connection = AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test"))
        var configuration = try ConsoleConfiguration(operators: [(name: "alice", secret: Self.secret)])
        configure(&configuration)
        let console = OperatorConsole(
            configuration: configuration,
            review: DeadLetterReview(
                store: DeadLetterStore(database), connection: connection, topology: PipelineTopology(prefix: "unused")),
            database: database, catalog: Catalog(products: []),
            logger: Logger(label: "console") { _ in LogLines.Handler(sink: lines) })
        var intake = Intake(
            configuration: IntakeConfiguration(port: 0, apiTokens: ["console-doors-token-0123"]), database: database,
            catalog: Catalog(products: []), connection: connection, topology: PipelineTopology(prefix: "unused"),
            logger: Logger(label: "test"))
        intake.additionalRoutes = { console.register(on: $0) }
        return intake
    }

    /// Runs `body` with the console served by a live intake; `configure` adjusts the console.
    func withConsole(
        _ configure: (inout ConsoleConfiguration) -> Void = { _ in },
        _ body: @Sendable (Int, LogLines) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = LogLines()
        let served = try consoleIntake(
            configure, database: try SQLiteDatabase(path: directory.file("iap.sqlite")), lines: lines)
        try await withRunningServer({ onPort in served.application(onServerRunning: onPort) }) { port in
            try await body(port, lines)
        }
    }

    func send(_ port: Int, _ method: String, _ path: String, form: [String: String]? = nil, cookie: String? = nil)
        async throws -> RawHTTPConnection.Response?
    {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = (form ?? [:]).map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let cookie { text += "Cookie: \(cookie)\r\n" }
        if form != nil {
            text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        let connection = try await RawHTTPConnection.connect(port: port)
        try? await connection.send(text + "\r\n" + body)
        let response = await connection.response()
        await connection.close()
        return response
    }

    func logIn(_ port: Int, name: String = "alice", secret: String = secret) async throws
        -> RawHTTPConnection.Response?
    {
        try await send(port, "POST", "/console/login", form: ["name": name, "secret": secret])
    }

    @Test func failedLoginsBackOffPerClientAddressAndTheSecretIsNotEvenCheckedMeanwhile() async throws {
        try await withConsole({ $0.loginThrottle = .init(freeFailures: 2, firstDelay: .seconds(600)) }) { port, _ in
            // Given three wrong secrets from one address
            for _ in 0..<3 { #expect(try await logIn(port, secret: "wrong-secret-000000000")?.status == 401) }

            // Then even the right secret waits, told how long
            let refused = try await logIn(port)
            #expect(refused?.status == 429)
            #expect((refused?.headers["retry-after"]).flatMap { Int($0) }.map { $0 > 60 } == true)
            #expect(refused?.headers["set-cookie"] == nil)
            // And so does another operator name from the same address
            #expect(try await logIn(port, name: "bob")?.status == 429)
        }
    }

    @Test func theThrottleCountsPerOperatorNameAsWellAsPerAddress() {
        let throttle = LoginThrottle(policy: .init(freeFailures: 1, firstDelay: .seconds(10)))
        let now = ContinuousClock.now
        let fromA = LoginThrottle.keys(address: "192.0.2.1", operatorName: "alice")
        let fromB = LoginThrottle.keys(address: "192.0.2.2", operatorName: "alice")
        let bobFromC = LoginThrottle.keys(address: "192.0.2.3", operatorName: "bob")
        // Given two failures for alice from two addresses
        throttle.failed(fromA, now: now)
        throttle.failed(fromB, now: now)
        // Then alice waits from any address, bob from elsewhere does not
        #expect(throttle.wait(LoginThrottle.keys(address: "192.0.2.9", operatorName: "alice"), now: now) != nil)
        #expect(throttle.wait(bobFromC, now: now) == nil)
        // And each further failure doubles the wait
        throttle.failed(fromA, now: now)
        #expect(throttle.wait(fromA, now: now) == .seconds(20))
        // And after it, a success starts afresh
        throttle.succeeded(fromA)
        #expect(throttle.wait(fromA, now: now) == nil)
    }

    /// Through the intake's router, without a socket.
    @Test func logoutEndsTheSessionServerSideWithItsCSRFToken() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let intake = try consoleIntake(
            { _ in }, database: try SQLiteDatabase(path: directory.file("iap.sqlite")), lines: LogLines())
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        try await Application(router: intake.router()).test(.router) { client in
            // Given a logged-in operator and the CSRF token of her pages
            let login = try await client.execute(
                uri: "/console/login", method: .post, headers: form,
                body: ByteBuffer(string: "name=alice&secret=\(Self.secret)")
            ) { $0 }
            #expect(login.status == .seeOther)
            let cookie = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            // The overview, though no broker connection runs here: its queue depths wait at most
            // two seconds and say the broker did not answer
            let asked = ContinuousClock.now
            let page = try await client.execute(uri: "/console", method: .get, headers: [.cookie: cookie]) { $0 }
            #expect(page.status == .ok)
            #expect(ContinuousClock.now - asked < .seconds(10))
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
        try await withConsole({ $0.secureCookie = true }) { port, _ in
            let cookie = try #require(try await logIn(port)?.headers["set-cookie"])
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
        }
        try await withConsole { port, _ in
            let cookie = try await logIn(port)?.headers["set-cookie"]
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

    @Test func aFailedLoginLogsTheNameEscapedAndBounded() async throws {
        try await withConsole { port, lines in
            // Given a login whose name forges a log line, drives the terminal, and is long
            let name = "mallory\n2026-01-01 critical: forged line\u{1B}[2J" + String(repeating: "x", count: 500)
            #expect(try await logIn(port, name: name, secret: "wrong-secret-000000000")?.status == 401)

            // Then one line was logged, with no newline or escape character, and bounded
            let failed = try #require(lines.all.first { $0.contains("failed login") })
            #expect(!failed.contains("\n"))
            #expect(!failed.contains("\u{1B}"))
            #expect(failed.contains("mallory\\n2026"))
            #expect(failed.count < 400)
            #expect(!lines.all.contains { $0.contains("wrong-secret") })
        }
    }
}
