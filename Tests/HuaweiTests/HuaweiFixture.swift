import Foundation
import HTTPClient
import Huawei
import PipelineCore
import PipelineTesting
import StorePlugins
import StubStore
import Synchronization

/// A stub store served on a loopback port, and a Huawei store configured to reach it.
struct HuaweiFixture: Sendable {
    let store: StubAppStore
    let port: Int
    let http: CurlHTTPClient

    var stub: StubHuawei { store.huawei }
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var settings: HuaweiSettings { stub.settings(baseURL: baseURL) }

    /// The plug-in, its token cache on `clock`.
    func huawei(clock: TestClock = TestClock()) -> HuaweiStore {
        HuaweiStore(settings: settings, now: { clock.now })
    }

    /// The plug-in at `quota`, on the real clock (budgets are timed).
    func huawei(quota: HuaweiQuota) -> HuaweiStore {
        var settings = settings
        settings.quota = quota
        return HuaweiStore(settings: settings)
    }

    func context(budgets: any CallBudgetKeeper = LocalCallBudgetKeeper()) -> StoreContext {
        StoreContext(
            httpClient: http, budgets: budgets, catalog: Catalog(products: []),
            logger: .init(label: "huawei-tests"))
    }

    static func run<T: Sendable>(_ body: (HuaweiFixture) async throws -> T) async throws -> T {
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
                throw StoreCallError.huawei(.unavailable, call: "fixture", message: "the stub did not start")
            }
            let value = try await body(HuaweiFixture(store: store, port: port, http: http))
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

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let value = Mutex(Date())
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

extension Submission {
    static func huawei(_ evidence: StoreEvidence) -> Submission {
        Submission(id: "r-1", accountID: "player-1", evidence: .store(evidence), submittedAt: Date())
    }
}

/// An IAP public key for tests that need no server: the stub's.
enum StubKey {
    static let base64 = StubHuawei().publicKeyBase64
}
