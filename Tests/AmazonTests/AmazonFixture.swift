import Amazon
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import StorePlugins
import StubStore

/// A stub store served on a loopback port, and an Amazon store configured to reach it, its SNS
/// certificate trusted as the lab's executable trusts it.
struct AmazonFixture: Sendable {
    let store: StubAppStore
    let port: Int
    let http: CurlHTTPClient

    var stub: StubAmazon { store.amazon }
    var base: String { "http://127.0.0.1:\(port)" }
    var settings: AmazonSettings {
        AmazonSettings(
            sharedSecret: StubAmazon.sharedSecret, packageName: StubAmazon.packageName, rvsURL: base + "/amazon")
    }
    var amazon: AmazonStore { AmazonStore(settings: settings) }

    func verifier() throws -> any ReceiptVerifier {
        try amazon.verifier(
            StoreContext(
                httpClient: http, budgets: LocalCallBudgetKeeper(), catalog: Catalog(products: []),
                logger: .init(label: "amazon-tests")))
    }

    /// What the verifier says of `evidence`.
    func verify(_ evidence: StoreEvidence) async throws -> VerificationOutcome {
        try await verifier().verify(
            Submission(id: "r-1", accountID: "player-1", evidence: .store(evidence), submittedAt: Date()))
    }

    /// The evidence of a purchase a backend posts.
    static func purchase(user: String, receipt: String, package: String? = nil) throws -> StoreEvidence {
        var member = ["user_id": user, "receipt_id": receipt]
        member["package_name"] = package
        return try AmazonStore(settings: AmazonSettings(sharedSecret: "s3cret-shared", packageName: "com.a.b"))
            .receiptEvidence(member)
    }

    /// The request SNS makes to post `message`.
    static func request(_ message: SNSMessage) -> InboundRequest {
        InboundRequest(
            headers: ["content-type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": message.kind.rawValue],
            body: message.body)
    }

    static func run(_ body: (AmazonFixture) async throws -> Void) async throws {
        let store = StubAppStore(configuration: .init(seed: 1))
        let http = try CurlHTTPClient()
        do {
            try await withRunningServer({ makeStubStoreApplication(store: store, port: 0, onServerRunning: $0) }) {
                let fixture = AmazonFixture(store: store, port: $0, http: http)
                store.amazon.serve(at: fixture.base)
                SNSCertificateTrust.trustLab(prefix: fixture.base + "/amazon/sns/")
                try await body(fixture)
            }
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }
}
