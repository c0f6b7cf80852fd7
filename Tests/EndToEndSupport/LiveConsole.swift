import Broker
import Database
import DatabaseSQLite
import DeadLetters
import Foundation
import Intake
import Logging
import Pipeline
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization

@testable import Console

/// The console served by an intake on a real socket (port 0) over a fresh SQLite file,
/// driven request by request as a browser or a script would. Its operators: alice, with
/// the `adjust` role, and bob, who reads.
struct LiveConsole {
    static let secret = "alice-secret-0123456789"
    static let readerSecret = "bob-reads-0123456789abc"

    let port: Int
    let lines: LogLines
    let database: SQLiteDatabase
    /// The statements the console sent (the intake's own go to `database` directly).
    var statements: CountingDatabase? = nil

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

    /// An intake serving the console over `database`; `configure` adjusts the console, `now` is its clock.
    ///   - consoleDatabase: what the console reads and writes through (a ``CountingDatabase``
    ///     over `database`); `database` by default.
    ///   - broker: a running connection and its topology, for replays; by default one never
    ///     started, on which the overview's queue depths say the broker did not answer.
    static func intake(
        _ configure: (inout ConsoleConfiguration) -> Void, database: SQLiteDatabase, lines: LogLines,
        now: @escaping @Sendable () -> Date = { Date() }, consoleDatabase: (any SQLDatabase)? = nil,
        broker: (AMQPConnection, PipelineTopology)? = nil
    ) throws -> Intake {
        let (connection, topology) =
            broker
            ?? (
                AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
                PipelineTopology(prefix: "unused")
            )
        var configuration = try ConsoleConfiguration(
            operators: [(name: "alice", secret: Self.secret), (name: "bob", secret: Self.readerSecret)],
            roles: ["alice": [.adjust]])
        configure(&configuration)
        let consoleDatabase = consoleDatabase ?? database
        let console = OperatorConsole(
            configuration: configuration,
            review: DeadLetterReview(
                store: DeadLetterRepository(consoleDatabase), connection: connection, topology: topology),
            database: consoleDatabase, catalog: Catalog(products: []),
            logger: Logger(label: "console") { _ in LogLines.Handler(sink: lines) }, now: now)
        var intakeConfiguration = IntakeConfiguration(port: 0, apiTokens: ["console-doors-token-0123"])
        intakeConfiguration.stores = PluginStores.unconfigured
        var intake = Intake(
            configuration: intakeConfiguration, database: database,
            catalog: Catalog(products: []), connection: connection, topology: topology,
            logger: Logger(label: "test"))
        intake.additionalRoutes = { console.register(on: $0) }
        return intake
    }

    /// Runs `body` with the console served by a live intake; `configure` adjusts the console,
    /// `broker` gives it a running connection (see ``intake(_:database:lines:now:consoleDatabase:broker:)``).
    static func run(
        _ configure: (inout ConsoleConfiguration) -> Void = { _ in }, now: @escaping @Sendable () -> Date = { Date() },
        broker: (AMQPConnection, PipelineTopology)? = nil, _ body: @Sendable (LiveConsole) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = LogLines()
        let database = try SQLiteDatabase(path: directory.file("iap.sqlite"))
        let statements = CountingDatabase(database)
        let served = try intake(
            configure, database: database, lines: lines, now: now, consoleDatabase: statements, broker: broker)
        try await withRunningServer({ onPort in served.application(onServerRunning: onPort) }) { port in
            try await body(LiveConsole(port: port, lines: lines, database: database, statements: statements))
        }
    }

    /// One request on a fresh connection, `Host: 127.0.0.1`; `headers` are added as given,
    /// `source` is the client's own address (127.0.0.2 is another client).
    func send(
        _ method: String, _ path: String, form: [String: String]? = nil, cookie: String? = nil,
        headers: [String: String] = [:], from source: String? = nil
    ) async throws -> RawHTTPConnection.Response? {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = (form ?? [:]).map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let cookie { text += "Cookie: \(cookie)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if form != nil {
            text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        let connection = try await RawHTTPConnection.connect(port: port, from: source)
        try? await connection.send(text + "\r\n" + body)
        let response = await connection.response()
        await connection.close()
        return response
    }

    /// The login form as a browser gets it: its token, and the cookie that token is checked against.
    func loginForm() async throws -> (cookie: String, token: String)? {
        guard let page = try await send("GET", "/console/login"), let cookie = Self.cookie(page),
            let start = page.body.range(of: "name=\"login_csrf\" value=\"")?.upperBound
        else { return nil }
        return (cookie, String(page.body[start...].prefix { $0 != "\"" }))
    }

    /// A login as a browser posts it from the console's page: with `Origin` (this console's own).
    func logIn(
        name: String = "alice", secret: String = LiveConsole.secret, origin: String? = "http://127.0.0.1",
        from source: String? = nil
    ) async throws -> RawHTTPConnection.Response? {
        try await send(
            "POST", "/console/login", form: ["name": name, "secret": secret],
            headers: origin.map { ["Origin": $0] } ?? [:], from: source)
    }

    /// `name=value` of the response's `Set-Cookie`.
    static func cookie(_ response: RawHTTPConnection.Response?) -> String? {
        response?.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
    }

    /// The CSRF token a page's forms carry.
    static func csrf(_ page: RawHTTPConnection.Response?) -> String? {
        guard let body = page?.body, let start = body.range(of: "name=\"csrf\" value=\"")?.upperBound else {
            return nil
        }
        return String(body[start...].prefix { $0 != "\"" })
    }
}
