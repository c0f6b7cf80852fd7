import Apps
import Broker
import Database
import DatabasePostgres
import DatabaseSQLite
import DatabaseSchema
import Foundation
import Logging
import Pipeline
import PipelineCore
import Repositories
import SettlementWriter
import StorePlugins

/// The settings every process shares, read from the environment at start.
package struct PipelineSettings: Sendable {
    package var environment: EnvironmentReader
    package var amqp: AMQPConfiguration
    package var queuePrefix: String
    /// Replicas of each quorum queue the stages create (`IAP_QUORUM_GROUP_SIZE`).
    package var quorumGroupSize: Int
    package var databasePath: String
    /// PostgreSQL instead of the SQLite file, when `IAP_DATABASE_URL` is set.
    package var postgres: PostgresLocation?
    /// How many transactions a process runs at once on PostgreSQL (`IAP_DATABASE_CONNECTIONS`).
    package var postgresConnections: Int
    /// How long PostgreSQL work may take (`IAP_DATABASE_TIMEOUT_SECONDS` for the stages',
    /// `IAP_DATABASE_LONG_TIMEOUT_SECONDS` for the commands' and the console's), and how soon a
    /// silent server is given up (`IAP_DATABASE_DEAD_PEER_SECONDS`).
    package var postgresTimeouts: PostgresTimeouts
    package var logLevel: Logger.Level
    /// Metrics, health and shutdown settings (`IAP_SHUTDOWN_GRACE`, `IAP_ADMIN_*`).
    package var operations: OperationsSettings
    /// The apps file (`IAP_APPS`), checked; nil with the single-app settings.
    package var apps: AppsFile?

    /// - Throws: ``SettingError`` naming the variable that is missing or malformed.
    package init(environment env: EnvironmentReader = EnvironmentReader()) throws(SettingError) {
        environment = env
        let url = env.string("IAP_AMQP_URL", default: AMQPConfiguration.defaultURL)
        do {
            amqp = try AMQPConfiguration(url: url)
        } catch {
            throw SettingError(variable: "IAP_AMQP_URL", problem: error.description)
        }
        amqp.ackLinger = .milliseconds(
            try env.int("IAP_AMQP_ACK_LINGER_MS", default: Int(amqp.ackLinger.milliseconds), range: 0...1000))
        amqp.deadPeer = DeadPeer(
            timeout: .seconds(
                try env.int(
                    "IAP_AMQP_DEAD_PEER_SECONDS", default: Int(amqp.deadPeer.timeout.components.seconds), range: 2...120
                )))
        queuePrefix = env.string("IAP_QUEUE_PREFIX", default: "iap")
        guard !queuePrefix.isEmpty, queuePrefix.count <= 100,
            queuePrefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw SettingError(variable: "IAP_QUEUE_PREFIX", problem: "use 1-100 letters, digits, '.', '_' or '-'")
        }
        quorumGroupSize = try env.int(
            "IAP_QUORUM_GROUP_SIZE", default: PipelineTopology.defaultQuorumGroupSize, range: 1...99)
        databasePath = env.string("IAP_DB_PATH", default: "var/iap.sqlite")
        if let url = env.optional("IAP_DATABASE_URL") { postgres = try PostgresLocation(url: url) }
        let connections = env.string("IAP_DATABASE_CONNECTIONS", default: "4")
        guard let count = Int(connections), (1...64).contains(count) else {
            throw SettingError(variable: "IAP_DATABASE_CONNECTIONS", problem: "must be 1...64, got '\(connections)'")
        }
        postgresConnections = count
        postgresTimeouts = try Self.postgresTimeouts(env)
        let level = env.string("IAP_LOG_LEVEL", default: "info")
        guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
            throw SettingError(
                variable: "IAP_LOG_LEVEL",
                problem:
                    "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(level)'")
        }
        logLevel = parsed
        operations = try OperationsSettings(environment: env)
        // Every process checks a file of apps at start, as `iap apps check` does, whether it
        // serves apps yet or not: a bad file stops it naming the app and the member.
        if let path = env.optional("IAP_APPS") {
            let file = try AppsFile.load(path: path, schema: .registered)
            _ = try file.check(over: env)
            apps = file
        }
    }

    private static func postgresTimeouts(_ env: EnvironmentReader) throws(SettingError) -> PostgresTimeouts {
        let defaults = PostgresTimeouts()
        func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }
        let work = try env.int("IAP_DATABASE_TIMEOUT_SECONDS", default: seconds(defaults.work), range: 5...3600)
        let longWork = try env.int(
            "IAP_DATABASE_LONG_TIMEOUT_SECONDS", default: max(work, seconds(defaults.longWork)), range: 5...86_400)
        guard longWork >= work else {
            throw SettingError(
                variable: "IAP_DATABASE_LONG_TIMEOUT_SECONDS",
                problem: "must be at least IAP_DATABASE_TIMEOUT_SECONDS (\(work)), got \(longWork)")
        }
        let deadPeer = try env.int(
            "IAP_DATABASE_DEAD_PEER_SECONDS", default: seconds(defaults.deadPeer.timeout), range: 2...120)
        return PostgresTimeouts(
            deadPeer: DeadPeer(timeout: .seconds(deadPeer)), work: .seconds(work), longWork: .seconds(longWork))
    }

    package var topology: PipelineTopology { PipelineTopology(prefix: queuePrefix, quorumGroupSize: quorumGroupSize) }

    /// A connection to the broker that declares the pipeline's topology.
    /// What every stage is composed over, its loggers labelled as this process's.
    /// - Parameter caFile: `IAP_VERIFY_CA_FILE`, for the stages that call the stores.
    package func stageParts(catalog: Catalog, stores: StoreRegistry, caFile: String? = nil) -> StageParts {
        StageParts(
            topology: topology, catalog: catalog, stores: stores, caFile: caFile, logger: { self.logger($0) })
    }

    package func connection(_ label: String) -> AMQPConnection {
        AMQPConnection(configuration: amqp, topology: topology.topology, logger: logger("amqp.\(label)"))
    }

    package func logger(_ label: String) -> Logger {
        var logger = Logger(label: "iap.\(label)")
        logger.logLevel = logLevel
        return logger
    }

    /// The database, as logs and messages name it (a URL without its password).
    package var databaseDescription: String { postgres?.description ?? databasePath }

    /// Opens the pipeline's database: PostgreSQL at `IAP_DATABASE_URL` when set, which must
    /// be reachable and migrated (`iap migrate`); else the SQLite file at `IAP_DB_PATH`,
    /// created and migrated if needed.
    /// - Parameter longWork: for a command that may read the whole database (an audit, a
    ///   report): PostgreSQL bounds its work by `IAP_DATABASE_LONG_TIMEOUT_SECONDS`, not the
    ///   stages' `IAP_DATABASE_TIMEOUT_SECONDS`.
    package func openDatabase(longWork: Bool = false) async throws -> any SQLDatabase {
        guard let postgres else { return try openSQLite() }
        let database = PostgresPipelineDatabase(
            location: postgres, connections: postgresConnections, timeouts: postgresTimeouts, longWork: longWork,
            logger: logger("postgres"))
        do {
            try await database.checkReachable()
            let version = try await database.schemaVersion()
            guard version == Schema.latestVersion else {
                let problem =
                    version < Schema.latestVersion
                    ? "the schema at \(postgres) is version \(version), this iap needs "
                        + "\(Schema.latestVersion): run `iap migrate` first"
                    : "the schema at \(postgres) is version \(version), newer than this iap knows "
                        + "(\(Schema.latestVersion)): upgrade iap"
                throw SettingError(variable: "IAP_DATABASE_URL", problem: problem)
            }
            return database
        } catch let error as SettingError {
            await database.close()
            throw error
        } catch {
            await database.close()
            throw SettingError(variable: "IAP_DATABASE_URL", problem: "\(error)")
        }
    }

    /// Opens (creating and migrating if needed) the SQLite database at `IAP_DB_PATH`.
    package func openSQLite() throws -> SQLiteDatabase {
        let directory = (databasePath as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        do {
            return try SQLiteDatabase(path: databasePath)
        } catch {
            throw SettingError(variable: "IAP_DB_PATH", problem: "cannot open \(databasePath): \(error)")
        }
    }

    /// The catalog at `IAP_CATALOG`, or the built-in sample when unset.
    package func catalog(logger: Logger) throws -> Catalog {
        try catalog(in: environment, logger: logger)
    }

    /// The catalog at `IAP_CATALOG` of `environment`, or the built-in sample when unset.
    package func catalog(in environment: EnvironmentReader, logger: Logger) throws -> Catalog {
        guard let path = environment.optional("IAP_CATALOG") else {
            logger.notice("IAP_CATALOG is not set: using the built-in sample catalog (com.example.* products)")
            return SampleCatalog.catalog
        }
        return try Self.catalog(at: path)
    }

    /// The catalog file at `path`, refused as `IAP_CATALOG` when it does not hold.
    package static func catalog(at path: String) throws(SettingError) -> Catalog {
        do {
            return try Catalog.load(path: path)
        } catch {
            throw SettingError(variable: "IAP_CATALOG", problem: error.description)
        }
    }
}
