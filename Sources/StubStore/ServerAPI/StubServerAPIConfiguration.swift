import Crypto
import Foundation

/// How the stub's App Store Server API behaves: whose tokens it accepts and how it pages and
/// throttles (see ``StubServerAPI``).
public struct StubServerAPIConfiguration: Sendable {
    /// The private key of development setups (`iap-lab stub-store`, the demo): a P-256 key in
    /// PKCS#8 PEM, as App Store Connect hands out `.p8` files.
    ///
    /// It is in the source, so it proves nothing: use it on your own machine only.
    public static let developmentPrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQggtvQlayTyHKtR2IW
        98DqxkgXMuSU1gJD5w69kfP9awahRANCAAS8rB1trxlGNC1O+s7xWPtpE6n0a7VN
        cvzEKBVMqdzmfn8+hX2F9Xloi3F2HPcYuAb6Rsh8bpibhRXrMw77luRK
        -----END PRIVATE KEY-----
        """
    /// The key id of ``developmentPrivateKeyPEM``.
    public static let developmentKeyID = "STUBDEVKEY"
    /// The issuer id that goes with ``developmentPrivateKeyPEM``.
    public static let developmentIssuerID = "6a6d1a5e-3c0f-4b8e-9d2a-5f1e7c3b9a40"

    /// The public key tokens must verify with; `nil` answers every request `401`.
    public var publicKey: P256.Signing.PublicKey? {
        get { publicKeyX963.flatMap { try? P256.Signing.PublicKey(x963Representation: $0) } }
        set { publicKeyX963 = newValue?.x963Representation }
    }
    /// swift-crypto's keys are not `Sendable`; the key is kept as its X9.63 bytes.
    private var publicKeyX963: Data?
    /// The `kid` tokens must carry; `nil` accepts any.
    public var keyID: String?
    /// The `iss` tokens must carry; `nil` accepts any.
    public var issuerID: String?
    /// The `appAppleId` of production answers (the sandbox sends none, as Apple's does).
    public var appAppleID: Int64?
    /// Transactions per history page (Apple sends up to 20).
    public var pageSize: Int
    /// How many requests, after authentication, are answered `429` before any is served.
    public var rateLimitFirst: Int
    /// The `Retry-After` of those `429`s, in seconds.
    public var retryAfterSeconds: Int
    /// How far in the future a token's `iat` may be, for clocks that disagree a little.
    public var allowedClockSkew: Duration
    /// Whether a request past Apple's limit for its endpoint in the current second
    /// (``AppStoreServerAPIRates/appleLimits``, a tenth in the sandbox) is answered `429`
    /// with `Retry-After` (the next second, in milliseconds since 1970), as Apple does.
    public var enforcesRateLimits = false

    /// Creates a configuration.
    /// - Parameters:
    ///   - publicKey: The public key tokens must verify with, or `nil` to refuse all.
    ///   - keyID: The required `kid`, or `nil` for any.
    ///   - issuerID: The required `iss`, or `nil` for any.
    ///   - appAppleID: The `appAppleId` of production answers.
    ///   - pageSize: Transactions per history page; at least 1.
    ///   - rateLimitFirst: How many requests are answered `429` first.
    ///   - retryAfterSeconds: Their `Retry-After`.
    ///   - allowedClockSkew: How far in the future an `iat` may be.
    public init(
        publicKey: P256.Signing.PublicKey?,
        keyID: String? = nil,
        issuerID: String? = nil,
        appAppleID: Int64? = 1_234_567_890,
        pageSize: Int = 20,
        rateLimitFirst: Int = 0,
        retryAfterSeconds: Int = 1,
        allowedClockSkew: Duration = .seconds(60)
    ) {
        self.publicKeyX963 = publicKey?.x963Representation
        self.keyID = keyID
        self.issuerID = issuerID
        self.appAppleID = appAppleID
        self.pageSize = max(pageSize, 1)
        self.rateLimitFirst = max(rateLimitFirst, 0)
        self.retryAfterSeconds = max(retryAfterSeconds, 0)
        self.allowedClockSkew = allowedClockSkew
    }

    /// Accepts tokens signed with ``developmentPrivateKeyPEM`` under ``developmentKeyID`` and
    /// ``developmentIssuerID``.
    public static var development: Self {
        // The PEM is a constant known to parse (StubServerAPITests checks it).
        let key = try? P256.Signing.PrivateKey(pemRepresentation: developmentPrivateKeyPEM)
        return Self(publicKey: key?.publicKey, keyID: developmentKeyID, issuerID: developmentIssuerID)
    }
}
