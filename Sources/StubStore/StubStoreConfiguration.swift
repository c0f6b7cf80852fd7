import Foundation

/// How a ``StubAppStore`` behaves: whose receipts it believes, and how badly it serves.
///
/// The defaults make a fast, well-behaved endpoint; the chaos knobs (``latency``,
/// ``errorRate``, ``timeoutRate``) make the slow, flaky one that benchmarks and failure tests
/// need. With a ``seed`` the chaos is the same on every run.
public struct StubStoreConfiguration: Sendable {
    /// The signing key of development setups (`iap-lab stub-store`, the README demo).
    ///
    /// It is in the source, so it proves nothing: use it on your own machine only.
    public static let developmentSigningKey = "iap-stub-store-development-key-not-a-secret"

    /// The key receipts are signed with (``StubReceipt/encoded(signingKey:)``); a receipt
    /// signed with another key is answered `21003`.
    public var signingKey: String
    /// The bundle id `POST /stub/receipts` puts in a receipt that names none. Informational:
    /// checking the bundle id is the verifier's business, as with Apple.
    public var bundleID: String
    /// The app's shared secret. When set, a request whose `password` is missing or differs
    /// is answered `21004`; when `nil`, any `password` is accepted.
    public var sharedSecret: String?
    /// How long every request waits before it is answered.
    public var latency: Duration
    /// The share of requests (0...1) answered `HTTP 503` instead of a verify answer.
    public var errorRate: Double
    /// The share of requests (0...1) that hang for ``hangDuration`` (then answer `503`), to
    /// meet a client's timeout.
    public var timeoutRate: Double
    /// How long a hanging request hangs.
    public var hangDuration: Duration
    /// The seed of the randomness behind ``errorRate``, ``timeoutRate`` and minted
    /// transaction ids; `nil` seeds from the system.
    public var seed: UInt64?
    /// The stub's clock, for ``StubReceipt/transientUntil``, minted purchase dates and the
    /// App Store Server API's token checks.
    public var now: @Sendable () -> Date
    /// How the App Store Server API behaves: whose tokens it accepts, page size, throttle.
    public var serverAPI: StubServerAPIConfiguration
    /// Further DER roots whose PKCS #7 receipts `verifyReceipt` reads as its own: another
    /// stub's ``StubAppStore/receiptAuthority``, so that receipts one process mints verify at another.
    public var receiptRoots: [[UInt8]]

    /// Creates a configuration. Rates outside `0...1` are clamped into it.
    /// - Parameters:
    ///   - signingKey: The key receipts are signed with.
    ///   - bundleID: The bundle id of minted receipts that name none.
    ///   - sharedSecret: The shared secret requests must carry, or `nil` to accept any.
    ///   - latency: How long every request waits.
    ///   - errorRate: The share of requests answered `HTTP 503`.
    ///   - timeoutRate: The share of requests that hang.
    ///   - hangDuration: How long a hanging request hangs.
    ///   - seed: The seed of the chaos, or `nil` for a random one.
    ///   - now: The clock.
    ///   - serverAPI: The App Store Server API's key and knobs; the development key by default.
    ///   - receiptRoots: Further roots of PKCS #7 receipts to read.
    public init(
        signingKey: String = StubStoreConfiguration.developmentSigningKey,
        bundleID: String = "com.example.game",
        sharedSecret: String? = nil,
        latency: Duration = .zero,
        errorRate: Double = 0,
        timeoutRate: Double = 0,
        hangDuration: Duration = .seconds(60),
        seed: UInt64? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        serverAPI: StubServerAPIConfiguration = .development,
        receiptRoots: [[UInt8]] = []
    ) {
        self.signingKey = signingKey
        self.bundleID = bundleID
        self.sharedSecret = sharedSecret
        self.latency = latency
        self.errorRate = min(max(errorRate, 0), 1)
        self.timeoutRate = min(max(timeoutRate, 0), 1)
        self.hangDuration = hangDuration
        self.seed = seed
        self.now = now
        self.serverAPI = serverAPI
        self.receiptRoots = receiptRoots
    }
}
