import AppStore
import Crypto
import Foundation
import HTTPClient
import PipelineCore
import StubStore
import Testing

/// The stub store's App Store Server API on a loopback port, the real libcurl client, and a
/// key the stub trusts (unless told to trust another).
struct ServerAPIFixture: Sendable {
    static let bundleID = "com.example.game"
    static let keyID = "TESTKEY001"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    let stub: StubStoreFixture
    /// The client's credentials.
    let key: AppStoreServerAPIKey

    var api: StubServerAPI { stub.store.serverAPI }
    var productionBaseURL: String { "http://127.0.0.1:\(stub.port)" }
    var sandboxBaseURL: String { "http://127.0.0.1:\(stub.port)/sandbox" }

    /// A client of this stub.
    func client(
        maxRetries: Int = 2, maxRetryAfter: Duration = .seconds(10), sandboxFallback: Bool = true,
        key: AppStoreServerAPIKey? = nil, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        rates: AppStoreServerAPIRates = .init(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClient(
            key: key ?? self.key,
            configuration: .init(
                productionBaseURL: productionBaseURL, sandboxBaseURL: sandboxBaseURL, timeout: .seconds(10),
                maxRetries: maxRetries, maxRetryAfter: maxRetryAfter, sandboxFallback: sandboxFallback, rates: rates),
            httpClient: stub.client, budgets: budgets, now: now)
    }

    /// A raw GET of `path` with `Authorization: Bearer token`, for what the typed client would not send.
    func get(_ path: String, bearer token: String?) async throws -> HTTPResponse {
        try await stub.client.execute(
            HTTPRequest(
                url: productionBaseURL + path,
                headers: token.map { [("Authorization", "Bearer \($0)")] } ?? []))
    }

    /// Runs `body` with a stub whose Server API trusts `trusted` (by default the client's own
    /// public key), adjusted by `adjust`.
    static func run<T: Sendable>(
        trusting trusted: P256.Signing.PublicKey? = nil,
        clientKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        _ adjust: (inout StubServerAPIConfiguration) -> Void = { _ in },
        _ body: (ServerAPIFixture) async throws -> T
    ) async throws -> T {
        let key = try AppStoreServerAPIKey(
            privateKey: clientKey, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
        var serverAPI = StubServerAPIConfiguration(
            publicKey: trusted ?? clientKey.publicKey, keyID: keyID, issuerID: issuerID)
        adjust(&serverAPI)
        return try await StubStoreFixture.run(.init(bundleID: bundleID, seed: 1, serverAPI: serverAPI)) { stub in
            try await body(ServerAPIFixture(stub: stub, key: key))
        }
    }
}

/// A stand-in for a signed transaction: the stub serves it verbatim, so any text will do.
func jws(_ transactionID: String, _ note: String = "") -> String {
    "eyJhbGciOiJFUzI1NiJ9.stub-\(transactionID)\(note.isEmpty ? "" : "-" + note).c2ln"
}

/// Signs any header and claims as ES256, for tokens the client would never make.
func signedToken(header: [String: Any], claims: [String: Any], key: P256.Signing.PrivateKey) throws -> String {
    func part(_ object: [String: Any]) throws -> String {
        base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
    let input = try part(header) + "." + part(claims)
    let signature = try key.signature(for: Data(input.utf8))
    return input + "." + base64URL(signature.rawRepresentation)
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func fromBase64URL(_ text: some StringProtocol) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
}

/// Apple's JSON bodies, copied beside this file.
func vector(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors/\(name)")
    return try Data(contentsOf: url)
}

/// Runs `body` and returns the ``AppStoreServerAPIError`` it throws; records an issue if it succeeds.
func expectAPIError<T>(
    _ body: () async throws(AppStoreServerAPIError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) async -> AppStoreServerAPIError? {
    do {
        let value = try await body()
        Issue.record("expected an AppStoreServerAPIError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
