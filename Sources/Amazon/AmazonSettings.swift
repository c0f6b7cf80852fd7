import Foundation
import PipelineCore

/// How the pipeline reaches Amazon's Receipt Verification Service (RVS), read from the
/// environment.
///
/// - `IAP_AMAZON_SHARED_SECRET`: the developer account's shared secret (the Developer Console's
///   "Shared Key" page); unset turns Amazon off
/// - `IAP_AMAZON_PACKAGE_NAME`: the app's package name, required with the secret: what Amazon's
///   Real-Time Notifications name (`appPackageName`) and what tells one app from another
/// - `IAP_AMAZON_ENVIRONMENT`: `production` (the default) or `sandbox` (RVS Cloud Sandbox, for
///   receipts of Amazon's App Tester)
/// - `IAP_AMAZON_RVS_URL`: RVS's base URL, `https://appstore-sdk.amazon.com` by default (the
///   sandbox adds `/sandbox`)
/// - `IAP_AMAZON_CALLS_PER_SECOND`: RVS calls a second every process together makes (20 by
///   default, 1-1000)
public struct AmazonSettings: Sendable {
    public static let secretVariable = "IAP_AMAZON_SHARED_SECRET"
    public static let defaultRVSURL = "https://appstore-sdk.amazon.com"
    public static let callsVariable = "IAP_AMAZON_CALLS_PER_SECOND"

    public var sharedSecret: String
    public var packageName: String
    public var sandbox: Bool
    public var rvsURL: String
    /// RVS calls a second, every process together.
    public var callsPerSecond: Double
    /// The longest a call waits in-process for its turn; past that its message is deferred.
    public var maxWait: Duration = .seconds(10)
    /// The oldest SNS message taken (its `Timestamp`): an older one is a replay.
    public var noticeMaxAge: Duration = .seconds(3600)

    public init(
        sharedSecret: String, packageName: String, sandbox: Bool = false, rvsURL: String = defaultRVSURL,
        callsPerSecond: Double = 20
    ) {
        self.sharedSecret = sharedSecret
        self.packageName = packageName
        self.sandbox = sandbox
        self.rvsURL = rvsURL
        self.callsPerSecond = callsPerSecond
    }

    /// The settings the environment asks for, or nil when `IAP_AMAZON_SHARED_SECRET` is unset.
    /// - Throws: ``SettingError`` naming the variable at fault; it never quotes the secret.
    public init?(environment env: EnvironmentReader) throws(SettingError) {
        guard let secret = env.optional(Self.secretVariable) else { return nil }
        // The secret travels in RVS's path: only characters a path segment keeps as they are.
        guard (8...256).contains(secret.utf8.count), secret.utf8.allSatisfy(Self.isPathSafe) else {
            throw SettingError(
                variable: Self.secretVariable,
                problem: "must be the account's shared secret: 8-256 letters, digits, '-', '_', '.' or ':'")
        }
        let package = try env.required("IAP_AMAZON_PACKAGE_NAME")
        guard AmazonPurchase.isPackageName(package) else {
            throw SettingError(variable: "IAP_AMAZON_PACKAGE_NAME", problem: "must be a package name (com.example.app)")
        }
        let sandbox: Bool
        switch env.optional("IAP_AMAZON_ENVIRONMENT")?.lowercased() ?? "production" {
        case "production": sandbox = false
        case "sandbox": sandbox = true
        default: throw SettingError(variable: "IAP_AMAZON_ENVIRONMENT", problem: "must be production or sandbox")
        }
        self.init(
            sharedSecret: secret, packageName: package, sandbox: sandbox,
            rvsURL: try env.httpURL("IAP_AMAZON_RVS_URL", default: Self.defaultRVSURL)!,
            callsPerSecond: Double(try env.int(Self.callsVariable, default: 20, range: 1...1000)))
    }

    /// RVS's `verifyReceiptId` for `userID`'s receipt `receiptID`.
    func verifyURL(userID: String, receiptID: String) -> String {
        let base = rvsURL.hasSuffix("/") ? String(rvsURL.dropLast()) : rvsURL
        return base + (sandbox ? "/sandbox" : "") + "/version/1.0/verifyReceiptId/developer/\(sharedSecret)"
            + "/user/\(Self.segment(userID))/receiptId/\(Self.segment(receiptID))"
    }

    /// `text` as one path segment: RFC 3986's `pchar`s as they are (Amazon's ids carry `=`,
    /// `:` and `+`, which Amazon's own examples send so), anything else (`/`, `%`) escaped.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? text
    }

    private static let pathCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@")

    static func isPathSafe(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x3A
    }
}
