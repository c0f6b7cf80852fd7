import Amazon
import AppStore
import AppleStore
import Broker
import Database
import DatabaseSQLite
import Foundation
import GooglePlay
import Huawei
import Hummingbird
import Logging
import Observability
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter
import StorePlugins
import Stripe
import StubStore
import Testing
import Xiaomi
import Yams

@testable import Intake

/// docs/openapi.yaml and the intake's router describe the same API: every route the router
/// registers is an operation of the spec, and every operation of the spec is a route. The
/// router is the one `iap intake` serves (API, health and metrics; the operators' console
/// is mounted beside it and is not part of the API), read back from Hummingbird's own table,
/// with every plug-in store configured, as the spec describes them all.
@Suite struct OpenAPIContractTests {
    static let specPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml").path

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The spec, parsed.
    static func spec() throws -> [String: Any] {
        let text = try String(contentsOfFile: specPath, encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    /// `GET /v1/receipts/{id}`, ... for every operation of the spec.
    static func specOperations() throws -> Set<String> {
        let paths = try #require(try spec()["paths"] as? [String: Any])
        var operations: Set<String> = []
        for (path, item) in paths {
            let item = try #require(item as? [String: Any], "path \(path) is not an object")
            for method in item.keys where methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// Every plug-in store, configured (as `iap intake` does from the environment).
    static func stores() -> StoreRegistry {
        StoreRegistry(
            known: [
                AppleStore.self, GooglePlayStore.self, HuaweiStore.self, StripeStore.self, XiaomiStore.self,
                AmazonStore.self,
            ],
            configured: [
                LiveIntake.appleStore, GooglePlayStore(setup: nil),
                HuaweiStore(
                    settings: HuaweiSettings(
                        clientID: StubHuawei.clientID, clientSecret: StubHuawei.clientSecret,
                        publicKey: HuaweiPublicKey(base64: StubHuawei().publicKeyBase64)!)),
                StripeStore(
                    settings: StripeSettings(apiKey: "sk_test_contract", webhookSecrets: ["whsec_contract_0123"])),
                XiaomiStore(settings: XiaomiSettings(appID: StubXiaomi.appID, appSecret: StubXiaomi.appSecret)),
                AmazonStore(
                    settings: AmazonSettings(sharedSecret: StubAmazon.sharedSecret, packageName: StubAmazon.packageName)
                ),
            ])
    }

    /// The members of the spec's receipt request.
    static func specReceiptMembers() throws -> Set<String> {
        let schemas = try #require((spec()["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let submission = try #require(schemas["ReceiptSubmission"] as? [String: Any])
        return Set(try #require(submission["properties"] as? [String: Any]).keys)
    }

    /// The same for every route of the intake's router, as `iap intake` builds it.
    static func routerOperations() throws -> Set<String> {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = IntakeConfiguration(apiTokens: ["contract-token-0123456789"])
        configuration.stores = stores()
        let intake = Intake(
            configuration: configuration,
            database: try SQLiteDatabase(path: directory.file("iap.sqlite")), catalog: Catalog(products: []),
            connection: AMQPConnection(configuration: AMQPConfiguration(), logger: Logger(label: "test")),
            topology: PipelineTopology(prefix: "unused"),
            health: HealthEndpoints(registry: MetricsBootstrap.prometheus(), checks: []), logger: Logger(label: "test"))
        // Hummingbird writes a capture as `{id}`, as OpenAPI does.
        return Set(intake.router().routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    @Test func everyRouteTheIntakeRegistersIsAnOperationOfTheSpec() throws {
        let undocumented = try Self.routerOperations().subtracting(Self.specOperations())
        #expect(undocumented.isEmpty, "routes missing from docs/openapi.yaml: \(undocumented.sorted())")
    }

    @Test func everyOperationOfTheSpecIsARouteOfTheIntake() throws {
        let unserved = try Self.specOperations().subtracting(Self.routerOperations())
        #expect(unserved.isEmpty, "operations the intake does not serve: \(unserved.sorted())")
    }

    @Test func theRouterAndTheSpecListTheAPIAndItsProbes() throws {
        // Guards the two tests above against both sides being empty or cut short.
        let operations = try Self.routerOperations()
        #expect(operations.isSuperset(of: ["POST /v1/receipts", "POST /v1/apple/notifications", "GET /readyz"]))
        #expect(operations.isSuperset(of: ["POST /v1/huawei/notifications", "POST /v1/stripe/notifications"]))
        #expect(operations.isSuperset(of: ["GET /v1/xiaomi/notifications", "POST /v1/amazon/notifications"]))
        #expect(operations.count >= 13)
    }

    @Test func theSpecsReceiptRequestListsExactlyTheMembersTheIntakeTakes() throws {
        let stores = Self.stores()
        #expect(stores.configured.count == stores.known.count, "every registered store is configured")
        let accepted = ReceiptRequest.fields.union(stores.receiptMembers.keys)
        #expect(accepted.contains("huawei"))
        let members = try Self.specReceiptMembers()
        let undocumented = accepted.subtracting(members).sorted()
        let refused = members.subtracting(accepted).sorted()
        #expect(members == accepted, "undocumented: \(undocumented), refused by the intake: \(refused)")
    }

    @Test func specIsOpenAPI31WithBearerTokensAndTheAPIsErrorShape() throws {
        let spec = try Self.spec()
        #expect(spec["openapi"] as? String == "3.1.0")
        let components = try #require(spec["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: Any])
        let token = try #require(schemes["apiToken"] as? [String: String])
        #expect(token["type"] == "http" && token["scheme"] == "bearer")
        let schemas = try #require(components["schemas"] as? [String: Any])
        let error = try #require(schemas["Error"] as? [String: Any])
        #expect(error["required"] as? [String] == ["error"])
        #expect(error["additionalProperties"] as? Bool == false)
    }

    static let storesOwnAnswers: Set<String> = ["#/components/responses/XiaomiAnswer"]

    @Test func everyErrorResponseOfTheSpecHasTheErrorShape() throws {
        // Every 4xx and 5xx of a JSON operation refers to a response whose schema is an Error.
        let spec = try Self.spec()
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        let components = try #require(spec["components"] as? [String: Any])
        let responses = try #require(components["responses"] as? [String: [String: Any]])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        for (path, item) in paths where path.hasPrefix("/v1/") {
            for (method, operation) in item where Self.methods.contains(method) {
                let answers = try #require((operation as? [String: Any])?["responses"] as? [String: Any])
                for (status, answer) in answers where status.hasPrefix("4") || status.hasPrefix("5") {
                    let reference = try #require((answer as? [String: String])?["$ref"], "\(method) \(path) \(status)")
                    // A store that reads its own answer (Xiaomi's `errcode`) is answered in its words.
                    if Self.storesOwnAnswers.contains(reference) { continue }
                    let response = try #require(responses[String(reference.split(separator: "/").last!)])
                    let schemaReference = try #require(
                        ((response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]
                            as? [String: String])
                    let schema = try #require(schemas[String(schemaReference["$ref"]!.split(separator: "/").last!)])
                    let allOf = try #require(schema["allOf"] as? [[String: Any]], "\(reference) is not an Error")
                    #expect(allOf.first?["$ref"] as? String == "#/components/schemas/Error", "\(reference)")
                }
            }
        }
    }
}
