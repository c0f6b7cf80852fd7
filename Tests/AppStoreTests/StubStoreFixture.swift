import AppStore
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import StubStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A stub store on a loopback port, a real libcurl client, and a verifier pointed at both.
struct StubStoreFixture: Sendable {
    let store: StubAppStore
    let port: Int
    let client: CurlHTTPClient

    var productionURL: String { "http://127.0.0.1:\(port)/verifyReceipt" }
    var sandboxURL: String { "http://127.0.0.1:\(port)/sandbox/verifyReceipt" }

    /// A verifier for `com.example.game` at this stub.
    func verifier(
        sharedSecret: String? = nil, timeout: Duration = .seconds(10), excludeOld: Bool = false
    ) throws -> VerifyReceiptVerifier {
        try VerifyReceiptVerifier(
            configuration: .init(
                bundleID: "com.example.game", productionURL: productionURL, sandboxURL: sandboxURL,
                sharedSecret: sharedSecret, excludeOldTransactions: excludeOld, requestTimeout: timeout),
            client: client)
    }

    /// A receipt signed by this stub.
    func receiptData(_ receipt: StubReceipt) -> String {
        store.issue(receipt)
    }

    /// Runs `body` with a fresh stub store and client, stopping both afterwards.
    static func run<T: Sendable>(
        _ configuration: StubStoreConfiguration = .init(seed: 1),
        _ body: (StubStoreFixture) async throws -> T
    ) async throws -> T {
        let store = StubAppStore(configuration: configuration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeStubStoreApplication(store: store, port: 0) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let client = try CurlHTTPClient()
        let server = RunningService(app)
        do {
            guard let port = await ports.first(where: { _ in true }), port > 0 else {
                throw FixtureError.stubDidNotStart
            }
            let value = try await body(StubStoreFixture(store: store, port: port, client: client))
            await client.shutdown()
            await server.stop()
            return value
        } catch {
            await client.shutdown()
            await server.stop()
            throw error
        }
    }
}

enum FixtureError: Error {
    case stubDidNotStart
}

/// A submission of `receiptData`, as the intake would commit it.
func submission(_ receiptData: String?, signedTransaction: String? = nil) -> Submission {
    Submission(
        id: "r-1", accountID: "player-1",
        evidence: signedTransaction.map(Evidence.signedTransaction) ?? .receipt(receiptData ?? ""),
        submittedAt: Date(timeIntervalSince1970: 1_700_000_000))
}

/// A receipt for `com.example.game` with one purchase of 100 coins.
func coins(
    _ environment: StubReceipt.Environment = .production, bundleID: String = "com.example.game",
    transactionID: String = "1000000000000001", failFirst: Int? = nil
) -> StubReceipt {
    StubReceipt(
        bundleID: bundleID, environment: environment,
        transactions: [
            .init(
                transactionID: transactionID, productID: "com.example.coins100",
                purchaseDate: Date(timeIntervalSince1970: 1_700_000_000))
        ],
        failFirst: failFirst)
}

/// A loopback port that is bound but not listening, so a connection to it is refused at once.
final class ClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClosedPortError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw ClosedPortError()
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}

struct ClosedPortError: Error {}
