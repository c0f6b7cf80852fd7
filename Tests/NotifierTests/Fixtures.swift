import Database
import DatabaseSQLite
import Foundation
import HTTPClient
import Logging
import Notifier
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import Synchronization

/// Data the notifier tests share: a pinned, hand-advanced clock and outbox rows made
/// through the store's real API (receipts accepted, then credited).
enum Fixture {
    /// 2025-06-15 15:06:40 UTC; whole seconds, so dates survive the database unchanged.
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    static let secret = try! WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    static let coins = "com.example.coins100"
    static let catalog = Catalog(products: [
        Product(productID: coins, kind: .consumable, grant: Grant(currency: "coins", amount: 100))
    ])

    /// A retry schedule for tests: one second between attempts, no jitter.
    static func schedule(maxAttempts: Int = 5) -> RetrySchedule {
        RetrySchedule(delays: [.seconds(1)], maxAttempts: maxAttempts, jitter: 0)
    }

    /// Credits `count` receipts `r1...` of account `a1` (or of `accounts(i)`), one webhook each, and returns the
    /// outbox rows, oldest first.
    @discardableResult
    static func notifications(
        _ count: Int, in database: any SQLDatabase, accounts: (Int) -> String = { _ in "a1" }
    ) async throws -> [OutboxWebhook] {
        try await credit(count, in: database, accounts: accounts)
        // Read a day ahead: a running notifier may have claimed (leased) them already.
        let rows = try await OutboxRepository(database).dueWebhooks(
            now: t0.addingTimeInterval(86_400), limit: count + 10)
        guard rows.count == count else { throw FixtureError("expected \(count) outbox rows, found \(rows.count)") }
        return rows
    }

    /// Credits `count` receipts `r1...` of account `a1` (or of `accounts(i)`), one webhook each.
    static func credit(
        _ count: Int, in database: any SQLDatabase, accounts: (Int) -> String = { _ in "a1" }
    ) async throws {
        let receipts = (1...count).map { i in
            NewReceipt(
                id: "r\(i)", accountID: accounts(i), kind: .legacy, payload: "payload-\(i)",
                payloadHash: String(repeating: String(format: "%02x", i % 256), count: 32),
                requestHash: String(repeating: String(format: "%02x", (i + 7) % 256), count: 32))
        }
        _ = try await IntakeRepository(database).accept(receipts, now: t0)
        let verdicts = (1...count).map { i in
            Verdict(
                outcome: .valid, receiptID: "r\(i)", accountID: accounts(i), attempts: 1, environment: "Sandbox",
                transactions: [
                    VerifiedTransaction(
                        transactionID: "t\(i)", originalTransactionID: "t\(i)", productID: coins, purchaseDate: t0)
                ], decidedAt: t0)
        }
        _ = try await SettlementRepository(database).apply(verdicts, catalog: catalog, now: t0)
    }

    /// A logger that keeps what it is given, at every level.
    static func logger(_ records: LogRecords = LogRecords()) -> Logger {
        Logger(label: "notifier-test") { _ in RecordingLogHandler(records: records) }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A wall clock that stands still until a test moves it.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Fixture.t0) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0.addTimeInterval(seconds) }
    }

    /// The clock as the notifier and the receiver take it.
    var function: @Sendable () -> Date { { self.now } }
}

/// An outbox row as stored, read straight from the file, since the store's API only hands
/// out pending rows.
struct OutboxRow: Hashable {
    var status: String
    var attempts: Int
    var lastError: String? = nil
    var nextAttemptAt: Date? = nil
}

/// Everything a delivery test needs, torn down at the end.
struct NotifierHarness {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase
    let client: CurlHTTPClient
    let clock = TestClock()
    let logs = LogRecords()

    var path: String { directory.file("pipeline.sqlite") }

    static func with<T>(_ body: (NotifierHarness) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let harness = NotifierHarness(
            directory: directory, database: try SQLiteDatabase(path: directory.file("pipeline.sqlite")),
            client: try CurlHTTPClient(configuration: .init(timeout: .seconds(5), connectTimeout: .seconds(2))))
        do {
            let result = try await body(harness)
            await harness.client.shutdown()
            return result
        } catch {
            await harness.client.shutdown()
            throw error
        }
    }

    /// A notifier on this harness's database (or another handle on its file), client and clock.
    func notifier(
        url: String?, schedule: RetrySchedule = Fixture.schedule(), batchSize: Int = 256, maxInFlight: Int = 64,
        pollInterval: Duration = .milliseconds(20), database: (any SQLDatabase)? = nil
    ) -> Notifier {
        Notifier(
            configuration: Notifier.Configuration(
                webhookURL: url, secret: Fixture.secret, pollInterval: pollInterval, batchSize: batchSize,
                maxInFlight: maxInFlight, requestTimeout: .seconds(5), schedule: schedule),
            database: database ?? self.database, client: client, logger: Fixture.logger(logs), now: clock.function)
    }

    func row(_ id: String) async throws -> OutboxRow? {
        try await database.snapshot { db in
            try await db.row(
                "SELECT status, attempts, last_error, next_attempt_at FROM notification_outbox WHERE id = ?", [id]
            ).map {
                OutboxRow(
                    status: try $0.get("status"), attempts: try $0.get("attempts"), lastError: try $0.get("last_error"),
                    nextAttemptAt: try $0.get("next_attempt_at"))
            }
        }
    }
}

// MARK: - Logs

/// Log lines kept for assertions.
final class LogRecords: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]

        /// The message and every metadata value, to search for what must not be logged.
        var fullText: String { ([message] + metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
    }

    private let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }
}

struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(
            .init(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
