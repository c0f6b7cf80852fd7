import Foundation
import HTTPClient
import Logging
import PipelineCore
import PipelineTesting
import StorePlugins
import Stripe
import StubStore
import Testing

/// A stub store served on a loopback port, and Stripe's plug-in pointed at its `/stripe`.
struct StripeFixture: Sendable {
    static let secret = "whsec_stub_signing_secret"

    let store: StubAppStore
    let port: Int
    let http: CurlHTTPClient

    var stripe: StubStripe { store.stripe }
    var settings: StripeSettings {
        StripeSettings(apiKey: "sk_test_stub", webhookSecrets: [Self.secret], apiURL: "http://127.0.0.1:\(port)/stripe")
    }

    func verifier(budgets: any CallBudgetKeeper = LocalCallBudgetKeeper()) throws -> any ReceiptVerifier {
        try StripeStore(settings: settings).verifier(context(budgets: budgets))
    }

    func context(budgets: any CallBudgetKeeper = LocalCallBudgetKeeper()) -> StoreContext {
        StoreContext(
            httpClient: http, budgets: budgets, catalog: Catalog(products: []), logger: Logger(label: "stripe-test"))
    }

    /// Stripe's event `type` about `object`, taken in as the intake would (signature and
    /// all), then verified.
    func verify(_ type: String, object: String, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper())
        async throws -> VerificationOutcome
    {
        let event = try #require(stripe.signedEvent(type, object: object, secret: Self.secret))
        let inbound = try await StripeStore(settings: settings).notification(
            InboundRequest(headers: ["stripe-signature": event.signature], body: event.body))
        let submission = Submission(
            id: "n-1", accountID: "", evidence: .store(inbound.evidence), submittedAt: Date())
        let verifier = try verifier(budgets: budgets)
        return await verifier.verify(submission)
    }

    static func run<T: Sendable>(_ body: (StripeFixture) async throws -> T) async throws -> T {
        let store = StubAppStore(configuration: .init(seed: 1))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeStubStoreApplication(store: store, port: 0) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let http = try CurlHTTPClient()
        let server = RunningService(app)
        do {
            guard let port = await ports.first(where: { _ in true }), port > 0 else {
                throw StoreCallError.stripe(.unavailable, call: "fixture", message: "the stub did not start")
            }
            let value = try await body(StripeFixture(store: store, port: port, http: http))
            await http.shutdown()
            await server.stop()
            return value
        } catch {
            await http.shutdown()
            await server.stop()
            throw error
        }
    }
}

extension VerificationOutcome {
    /// The notification, when the outcome is one.
    var notification: StoreNotification? {
        if case .notification(let notification) = self { return notification }
        return nil
    }
}
