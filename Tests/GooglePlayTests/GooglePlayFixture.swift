import Foundation
import GooglePlay
import HTTPClient
import PipelineCore
import PipelineTesting
import StorePlugins
import StubStore

/// A stub store served on a loopback port, and a Google Play client of its service account.
struct GooglePlayFixture: Sendable {
    static let package = "com.example.game"

    let store: StubAppStore
    let port: Int
    let http: CurlHTTPClient

    var play: StubGooglePlay { store.googlePlay }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    func client(
        quota: GooglePlayQuota = .init(), budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> GooglePlayClient {
        GooglePlayClient(
            account: try GoogleServiceAccount(json: play.serviceAccountJSON(baseURL: baseURL)),
            configuration: .init(apiURL: baseURL + "/google", timeout: .seconds(10)), httpClient: http, quota: quota,
            budgets: budgets, now: now)
    }

    static func run<T: Sendable>(_ body: (GooglePlayFixture) async throws -> T) async throws -> T {
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
                throw StoreCallError.googlePlay(.unavailable, call: "fixture", message: "the stub did not start")
            }
            let value = try await body(GooglePlayFixture(store: store, port: port, http: http))
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
