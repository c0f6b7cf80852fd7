import ArgumentParser
import Broker
import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP {
    /// `iap dlq`: review dead letters from the terminal (the console does the same on the web).
    struct Dlq: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dlq",
            abstract: "Review dead letters: list them by reason, show one, replay or discard them.",
            discussion: """
                Dead letters are archived in the database (IAP_DB_PATH) by the fulfiller; a replay
                publishes to the broker (IAP_AMQP_URL, IAP_QUEUE_PREFIX). Every subcommand takes --json.
                """,
            subcommands: [List.self, Show.self, Replay.self, Discard.self])
    }
}

/// Options every `iap dlq` subcommand shares.
struct DlqOutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of tables.") var json = false
}

/// Which dead letters: by reason, account and age.
struct DlqFilterOptions: ParsableArguments {
    @Option(help: "Only letters with exactly this reason.") var reason: String?
    @Option(help: "Only letters of this account.") var account: String?
    @Option(help: "Only letters that died longer ago than this (30m, 2h, 7d).") var olderThan: String?
    @Option(help: "Only letters that died at most this long ago (30m, 2h, 7d).") var newerThan: String?
    @OptionGroup var app: AppOption

    /// - Throws: `ValidationError` naming the malformed option.
    func filter() throws -> DeadLetterFilter {
        do {
            return try DeadLetterFilter(reason: reason, accountID: account, olderThan: olderThan, newerThan: newerThan)
        } catch {
            // A FilterError reads "older-than: '3x' is not a duration…".
            throw ValidationError("--\(error)")
        }
    }

    /// The filter of one app's letters (`--account` as that app's backend names it) with `--app`.
    /// - Throws: `ValidationError` naming a malformed option or an app IAP_APPS does not list.
    func filter(in apps: AppDirectory) throws -> DeadLetterFilter {
        var filter = try filter()
        let naming = AccountNaming(apps: apps, scope: try app.scope(in: apps))
        filter.app = naming.scope
        filter.accountID = filter.accountID.map(naming.stored)
        return filter
    }

    var isEmpty: Bool { reason == nil && account == nil && olderThan == nil && newerThan == nil && app.app == nil }
}

/// What `iap dlq` needs from the settings: the database (which must exist) and, for replays, the broker.
struct DlqContext {
    let settings: PipelineSettings
    let database: any SQLDatabase
    var letters: DeadLetterRepository { DeadLetterRepository(database) }

    init() async throws {
        settings = try PipelineSettings()
        // Reviewing reads an existing archive; it must not create an empty database where none was.
        guard settings.postgres != nil || FileManager.default.fileExists(atPath: settings.databasePath) else {
            throw SettingError(variable: "IAP_DB_PATH", problem: "no database at \(settings.databasePath)")
        }
        database = try await settings.openDatabase(longWork: true)
    }

    /// A review without a broker connection (for reading and discarding).
    func offlineReview() -> DeadLetterReview {
        DeadLetterReview(
            store: letters,
            connection: AMQPConnection(configuration: settings.amqp, logger: settings.logger("dlq")),
            topology: settings.topology)
    }

    /// Runs `body` with a review whose connection is up, then closes it.
    func withBroker<T>(_ body: (DeadLetterReview) async throws -> T) async throws -> T {
        var logger = settings.logger("dlq")
        logger.logLevel = .error
        let connection = AMQPConnection(
            configuration: settings.amqp, topology: settings.topology.topology, logger: logger)
        connection.start()
        do {
            try await connection.waitUntilConnected(timeout: .seconds(15))
        } catch {
            await connection.close()
            throw DlqFailure(
                "cannot reach the broker at \(settings.amqp.redactedURL) (IAP_AMQP_URL): \(error)")
        }
        do {
            let result = try await body(
                DeadLetterReview(
                    store: DeadLetterRepository(database), connection: connection, topology: settings.topology))
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }
}

/// A refused `iap dlq` request: the message says what and why; nothing was changed.
struct DlqFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The operator's name: `--by`, else `$USER`, else the name of the account running `iap`.
func operatorName(_ by: String?) throws -> String {
    let name = (by ?? ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName)
        .trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty else { throw ValidationError("--by: say who you are (USER is not set)") }
    guard name.count <= 64 else { throw ValidationError("--by: at most 64 characters") }
    return name
}
