import Broker
import Database
import DatabaseSQLite
import Foundation
import Logging
import PipelineTesting
import Prometheus
import Repositories
import SettlementWriter
import Testing

@testable import Observability

@Suite struct ReadinessTests {
    let registry = PrometheusCollectorRegistry()

    @Test func readyWhenTheBrokerIsConnectedAndTheDatabaseAnswers() async throws {
        // Given a connected broker and an open database
        let broker = BrokerFixture(label: "ready")
        let connection = try await broker.connect()
        defer { Task { await connection.close() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        let database = try SQLiteDatabase(path: path)
        let endpoints = HealthEndpoints(
            registry: registry,
            checks: [.broker(connection), ReadinessCheck(name: "database") { try await database.ping(path: path) }])

        // Then /readyz answers 200
        let answer = await endpoints.readiness()
        #expect(answer.ready)
        #expect(answer.text == "ready\n")
    }

    @Test func notReadyNamesEachDependencyThatIsDown() async throws {
        // Given a connection to a port with no broker, and a database whose file was removed
        var configuration = try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:1/")
        configuration.reconnectDelay = .milliseconds(50) ... .seconds(1)
        var logger = Logger(label: "readiness")
        logger.logLevel = .critical
        let connection = AMQPConnection(configuration: configuration, logger: logger)
        connection.start()
        defer { Task { await connection.close() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("iap.sqlite")
        let database = try SQLiteDatabase(path: path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let endpoints = HealthEndpoints(
            registry: registry,
            checks: [.broker(connection), ReadinessCheck(name: "database") { try await database.ping(path: path) }])

        // Then /readyz answers 503 with one line per problem, sorted by name
        let answer = await endpoints.readiness()
        #expect(!answer.ready)
        let lines = answer.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "broker: not connected to amqp://guest:***@127.0.0.1:1/")
        #expect(lines.last == "database: \(path) does not exist")
    }
}
