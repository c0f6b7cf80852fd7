import Database
import Foundation
import Logging
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization
import Testing

@testable import DatabasePostgres

/// `IAP_DATABASE_URL` with several servers, as libpq takes it: no server is needed.
@Suite struct PostgresLocationTests {
    @Test func severalServersAreReadInOrderWithTheirOwnPortsAndWriteToTheOneThatAcceptsWrites() throws {
        let location = try PostgresLocation(
            url: "postgres://app:hunter2@db1.internal:6543,db2.internal,[fd00::7]:5433/money?sslmode=require")
        #expect(
            location.servers == [
                .init(host: "db1.internal", port: 6543), .init(host: "db2.internal", port: 5432),
                .init(host: "fd00::7", port: 5433),
            ])
        #expect(location.target == .readWrite)
        #expect(location.user == "app" && location.database == "money" && location.sslMode == .require)
        #expect(
            location.description
                == "postgres://app:***@db1.internal:6543,db2.internal:5432,[fd00::7]:5433/money"
                + "?sslmode=require&target_session_attrs=read-write")
    }

    @Test func targetSessionAttrsIsReadWriteOrAny() throws {
        let any = try PostgresLocation(url: "postgres://u:p@a,b/db?target_session_attrs=any&sslmode=disable")
        #expect(any.target == .any && any.sslMode == .disable)
        #expect(any.description == "postgres://u:***@a:5432,b:5432/db?sslmode=disable&target_session_attrs=any")
        // One server is used as it is, unless it must accept writes.
        let one = try PostgresLocation(url: "postgres://u:p@a/db")
        #expect(one.target == .any && !one.searchesForPrimary)
        #expect(one.description == "postgres://u:***@a:5432/db?sslmode=prefer")
        let checked = try PostgresLocation(url: "postgres://u:p@a/db?target_session_attrs=read-write")
        #expect(checked.searchesForPrimary)
        #expect(checked.description.hasSuffix("&target_session_attrs=read-write"))
    }

    @Test func anEscapedPasswordIsDecodedForConnectingOnly() throws {
        let location = try PostgresLocation(url: "postgres://us%40er:p%40ss%2Fw?rd#@a,b/db%31")
        #expect(location.user == "us@er" && location.database == "db1")
        #expect(try location.connectionConfiguration(server: 1, timeout: .seconds(1)).password == "p@ss/w?rd#")
        #expect(try location.connectionConfiguration(server: 1, timeout: .seconds(1)).host == "b")
        #expect(!location.description.contains("p@ss") && !location.description.contains("p%40ss"))
    }

    @Test(arguments: [
        ("postgres://u:s3cret@db1:5432,,db2/iap", "host entry 2 is empty"),
        ("postgres://u:s3cret@db1:5432,db2:54x2/iap", "host entry 2 ('db2:54x2') has port '54x2'"),
        ("postgres://u:s3cret@db1:0/iap", "host entry 1 ('db1:0') has port '0': port must be 1...65535"),
        ("postgres://u:s3cret@db1,db2:70000/iap", "host entry 2 ('db2:70000')"),
        ("postgres://u:s3cret@db1,::1/iap", "host entry 2 ('::1') has several ':'"),
        ("postgres://u:s3cret@[::1/iap", "host entry 1 ('[::1') opens '['"),
        ("postgres://u:s3cret@[::1]x,db2/iap", "host entry 1 ('[::1]x')"),
        ("postgres://u:s3cret@db1,db%202/iap", "host entry 2 ('db%202') is not a host name or address"),
        ("postgres://u:s3cret@db1,db2,/iap", "host entry 3 is empty"),
        ("postgres://u:s3cret@db1,db2/iap?target_session_attrs=read-only", "target_session_attrs must be one of"),
        // No user before the host list: what looks like a password is never shown.
        ("postgres://u:s3cret,db2/iap", "names no user"),
        ("postgres://u:s3/cret@db1,db2/iap", "write a '/' in the user or password as %2F"),
        ("postgres://u:s3cret%zz@db1/iap", "malformed %-escape"),
        ("s3cret@db1://x", "is not a URL"),
    ])
    func aMalformedServerListIsRefusedNamingTheVariableAndTheEntryNeverThePassword(url: String, problem: String) {
        #expect {
            _ = try PostgresLocation(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("IAP_DATABASE_URL: ") && text.contains(problem) && !text.contains("s3")
        }
    }

    @Test func aServerThatRefusesTheLoginStopsTheProcessAtStartNamingEachServerNeverThePassword() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let server = PostgresFixture.server
        let location = try PostgresLocation(
            url:
                "postgres://\(server.user):s3cret-pass@127.0.0.1:1,\(server.host):\(server.port)/postgres?sslmode=disable"
        )
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        await #expect {
            try await database.checkReachable()
        } throws: { error in
            let text = "\(error)"
            return text.contains("no server accepts writes") && text.contains("127.0.0.1:1: ")
                && text.contains("password authentication failed") && !text.contains("s3cret")
        }
        await database.close()
    }

    @Test func noServerAnsweringAtStartIsWaitedForAndLoggedNeverThePassword() async throws {
        let records = LogRecords()
        let logger = Logger(label: "postgres-test") { _ in records }
        let location = try PostgresLocation(
            url: "postgres://iap:s3cret-pass@127.0.0.1:1,127.0.0.1:2/iap?sslmode=disable")
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        let starting = Task { try await database.checkReachable() }

        // A second round proves the first did not stop the process.
        let waited = await eventually { records.messages.filter { $0.contains("looking again") }.count >= 2 }
        #expect(waited, "\(records.messages)")
        let first = records.messages.first { $0.contains("looking again") } ?? ""
        #expect(first.hasPrefix("warning") && first.contains("127.0.0.1:1: ") && first.contains("127.0.0.1:2: "))
        #expect(!records.messages.joined().contains("s3cret"))
        starting.cancel()
        _ = await starting.result
        await database.close()
    }

    @Test func workWhileNoServerAnswersFailsAsTransientNamingTheServers() async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .critical
        let location = try PostgresLocation(
            url: "postgres://iap:s3cret-pass@127.0.0.1:1,127.0.0.1:2/iap?sslmode=disable")
        let database = PostgresPipelineDatabase(location: location, logger: logger)
        await #expect {
            try await database.transaction { try await $0.execute("SELECT 1") }
        } throws: { error in
            SQLError.blame(error) != .work && "\(error)".contains("127.0.0.1:2") && !"\(error)".contains("s3cret")
        }
        await database.close()
    }
}

/// Every record a logger gets, as "level message metadata": what an operator would read.
private final class LogRecords: LogHandler, Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    func log(event: LogEvent) {
        let line = "\(event.level) \(event.message) \(event.metadata ?? [:])"
        lines.withLock { $0.append(line) }
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
}
