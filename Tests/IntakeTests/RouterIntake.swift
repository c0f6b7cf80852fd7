import Broker
import Database
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PipelineCore
import Repositories
import SettlementWriter

@testable import Intake

/// An intake driven through its router, without a socket, on a real database; the relay
/// does not run, so what was committed stays countable.
enum RouterIntake {
    static func test(
        _ configuration: IntakeConfiguration, database: any SQLDatabase, catalog: Catalog,
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let intake = Intake(
            configuration: configuration, database: database, catalog: catalog,
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"), logger: Logger(label: "test"))
        try await Application(router: intake.router()).test(.router) { client in try await body(client) }
    }

    /// One call: its status and its JSON object (empty when the body is none).
    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil,
        token: String?, contentType: String = "application/json"
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [:]
        if json != nil { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }
        ) { response in
            (
                response.status,
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
            )
        }
    }
}
