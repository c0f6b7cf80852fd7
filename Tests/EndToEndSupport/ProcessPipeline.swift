import Broker
import Database
import DatabaseSQLite
import Foundation
import HTTPClient
import Hummingbird
import PipelineTesting
import Repositories
import SettlementWriter
import StubStore

/// The pipeline as an operator runs it: each stage an `iap` process, against the real
/// broker, one SQLite file, and the stub store ("Apple") served from this test process.
final class ProcessPipeline: @unchecked Sendable {
    static let token = "process-token-0123456789abcdef"
    static let sharedSecret = "shared-secret-do-not-log-42"

    let directory: TemporaryDirectory
    let broker: BrokerFixture
    let stub: StubAppStore
    let stubPort: Int
    let intakePort: Int
    let client: CurlHTTPClient
    /// The settings every process gets.
    let environment: [String: String]
    private var processes: [IAPProcess] = []
    private var stubServer: RunningService?

    private init(
        directory: TemporaryDirectory, broker: BrokerFixture, stub: StubAppStore, stubPort: Int, client: CurlHTTPClient,
        stubServer: RunningService, extra: [String: String]
    ) {
        self.directory = directory
        self.broker = broker
        self.stub = stub
        self.stubPort = stubPort
        self.client = client
        self.stubServer = stubServer
        self.intakePort = Self.freePort()
        environment = [
            "IAP_AMQP_URL": broker.url,
            "IAP_QUEUE_PREFIX": broker.prefix,
            "IAP_DB_PATH": directory.file("iap.sqlite"),
            "IAP_HTTP_PORT": "\(intakePort)",
            "IAP_API_TOKENS": Self.token,
            "IAP_VERIFY_URL": "http://127.0.0.1:\(stubPort)/verifyReceipt",
            "IAP_VERIFY_SANDBOX_URL": "http://127.0.0.1:\(stubPort)/sandbox/verifyReceipt",
            "IAP_BUNDLE_ID": PipelineHarness.bundleID,
            "IAP_SHARED_SECRET": Self.sharedSecret,
            "IAP_LOG_LEVEL": "info",
        ].merging(extra) { $1 }
    }

    /// Runs `body` with the stub store up, then kills what is left and removes the queues.
    static func run(
        stub configuration: StubStoreConfiguration, environment extra: [String: String] = [:],
        _ body: (ProcessPipeline) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stub = StubAppStore(configuration: configuration)
        let ports = Ports()
        let stubServer = RunningService(makeStubStoreApplication(store: stub, port: 0) { await ports.set($0) })
        let pipeline = ProcessPipeline(
            directory: directory, broker: BrokerFixture(label: "proc"), stub: stub, stubPort: await ports.value,
            client: try CurlHTTPClient(configuration: .init(maxConnections: 64, maxConnectionsPerHost: 64)),
            stubServer: stubServer, extra: extra)
        do {
            try await body(pipeline)
        } catch {
            await pipeline.stop()
            throw error
        }
        await pipeline.stop()
    }

    private func stop() async {
        for process in processes where process.process.isRunning { process.crash() }
        await stubServer?.stop()
        await client.shutdown()
        if let connection = try? await broker.connect() {
            await broker.cleanUp(PipelineTopology(prefix: broker.prefix).topology, connection)
        }
    }

    /// Starts `iap arguments…`; its output goes to `{role}-{n}.log` in the temp directory.
    func start(_ arguments: [String], environment more: [String: String] = [:]) throws -> IAPProcess {
        let log = URL(fileURLWithPath: directory.file("\(arguments[0])-\(processes.count).log"))
        let process = try IAPProcess.start(arguments, environment: environment.merging(more) { $1 }, output: log)
        processes.append(process)
        return process
    }

    /// Everything the processes logged so far.
    func logs() -> String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".log") }.sorted()
            .compactMap { try? String(contentsOfFile: directory.file($0), encoding: .utf8) }.joined()
    }

    /// The database the processes share, opened by the test to check the books.
    func database() throws -> SQLiteDatabase {
        try SQLiteDatabase(path: directory.file("iap.sqlite"))
    }

    /// Waits until `url` answers at all.
    func waitUntilServing(_ url: String, timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(100)) {
            (try? await client.execute(HTTPClient.HTTPRequest(url: url, timeout: .seconds(2)))) != nil
        }
    }

    /// `GET url`: status and body.
    func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await client.execute(HTTPClient.HTTPRequest(url: url, timeout: .seconds(5)))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// `POST /v1/receipts` with a legacy receipt, to the intake on `port` (the first one's by
    /// default); returns the status and receipt id.
    func submit(
        account: String, receiptData: String, port: Int? = nil, idempotencyKey: String? = nil
    ) async throws -> (Int, String?) {
        let body = try JSONSerialization.data(withJSONObject: ["account_id": account, "receipt_data": receiptData])
        var headers = [
            (name: "Authorization", value: "Bearer \(Self.token)"), (name: "Content-Type", value: "application/json"),
        ]
        if let idempotencyKey { headers.append((name: "Idempotency-Key", value: idempotencyKey)) }
        let response = try await client.execute(
            HTTPClient.HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(port ?? intakePort)/v1/receipts", headers: headers,
                body: Array(body), timeout: .seconds(10)))
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (response.status, json?["receipt_id"] as? String)
    }

    /// Mints a receipt the stub store vouches for (or rejects, for another bundle id).
    func receipt(
        transaction: String, product: String = "com.example.coins100", bundleID: String = PipelineHarness.bundleID
    ) -> String {
        stub.issue(
            StubReceipt(
                bundleID: bundleID,
                transactions: [StubReceipt.Transaction(transactionID: transaction, productID: product)]))
    }

    /// A TCP port nothing listens on right now.
    static func freePort() -> Int { LoopbackPort.free() }
}
