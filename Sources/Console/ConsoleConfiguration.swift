import Crypto
import Foundation
import PipelineCore

/// Who may use the console: operators with their own secrets, apart from the backend's
/// API tokens. With no operator the console is disabled (it answers 503), never open.
public struct ConsoleConfiguration: Sendable {
    /// An operator: a name (recorded on replays, discards and adjustments), the digest of a
    /// secret, and what more than reading the operator may do.
    public struct Operator: Sendable {
        public var name: String
        public var roles: Set<Role>
        var secretDigest: [UInt8]
    }

    /// A permission beyond reading. Which route needs which is the console's table of routes
    /// (`OperatorConsole.routes`, listed in `docs/console.md`).
    public enum Role: String, Sendable, CaseIterable {
        /// Whatever moves money or messages: grant and take back currency and entitlements
        /// (``AdjustmentRepository``), replay or discard a dead letter or a group of them, and send
        /// webhooks again.
        case adjust
    }

    public var operators: [Operator]
    /// How long a login lasts.
    public var sessionLifetime: TimeInterval
    /// Whether the session cookie is `Secure` (sent over HTTPS only): `IAP_CONSOLE_SECURE_COOKIE`,
    /// on unless the intake listens on loopback.
    public var secureCookie: Bool
    /// The apps of `IAP_APPS` the lists filter by and name accounts with; one app by default.
    public var apps = AppDirectory.single
    /// Each app's catalog, what an operator may grant an account of that app; nil: the
    /// stage's catalog for every account.
    public var catalogs: AppCatalogs?
    /// `IAP_REVENUE_RATES`: the rates the revenue page also sums every currency in one with;
    /// nil (unset): sums stay per currency.
    public var revenueRates: ExchangeRates?
    /// When failed logins start to wait, and how long.
    var loginThrottle = LoginThrottle.Policy()
    /// Signs session cookies and CSRF tokens; derived from the operators' secrets, so that
    /// every intake process with the same settings accepts the same sessions.
    private let signingKeyBytes: [UInt8]

    var signingKey: SymmetricKey { SymmetricKey(data: signingKeyBytes) }

    /// - Parameters:
    ///   - operators: `(name, secret)` pairs; names of `A-Za-z0-9._-`, secrets of at least 16 characters.
    ///   - roles: Each operator's roles, by name; none by default (read-only).
    ///   - secureCookie: whether the cookie is `Secure`; ``secureCookie(environment:)`` reads the setting.
    public init(
        operators: [(name: String, secret: String)], roles: [String: Set<Role>] = [:],
        sessionLifetime: TimeInterval = 8 * 3600, secureCookie: Bool = false
    ) throws(SettingError) {
        var seen: Set<String> = []
        for (name, secret) in operators {
            guard (1...64).contains(name.count),
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
            else {
                throw SettingError(
                    variable: "IAP_CONSOLE_OPERATORS",
                    problem: "operator name '\(name)' must be 1-64 of A-Z a-z 0-9 . _ -")
            }
            guard secret.count >= 16 else {
                throw SettingError(
                    variable: "IAP_CONSOLE_OPERATORS",
                    problem: "the secret of operator '\(name)' needs at least 16 characters (it has \(secret.count))")
            }
            guard seen.insert(name).inserted else {
                throw SettingError(variable: "IAP_CONSOLE_OPERATORS", problem: "operator '\(name)' is listed twice")
            }
        }
        self.operators = operators.map {
            Operator(
                name: $0.name, roles: roles[$0.name] ?? [],
                secretDigest: Array(SHA256.hash(data: Array($0.secret.utf8))))
        }
        self.sessionLifetime = sessionLifetime
        self.secureCookie = secureCookie
        let material = operators.map { "\($0.name):\($0.secret)" }.sorted().joined(separator: "\n")
        self.signingKeyBytes = Array(SHA256.hash(data: Array(("iap-console-session-v1\n" + material).utf8)))
    }

    /// Reads `IAP_CONSOLE_OPERATORS` ("alice:secret:adjust,bob:secret"): name, secret and,
    /// after a last colon, roles joined by `+` (a trailing part that names no role is part of
    /// the secret); unset or empty disables the console.
    public init(environment env: EnvironmentReader) throws(SettingError) {
        var pairs: [(String, String)] = []
        var roles: [String: Set<Role>] = [:]
        for entry in env.list("IAP_CONSOLE_OPERATORS") {
            guard let colon = entry.firstIndex(of: ":") else {
                throw SettingError(
                    variable: "IAP_CONSOLE_OPERATORS", problem: "each entry is name:secret[:roles] (one has no ':')")
            }
            let name = String(entry[..<colon])
            var secret = String(entry[entry.index(after: colon)...])
            if let last = secret.lastIndex(of: ":") {
                let named = secret[secret.index(after: last)...].split(separator: "+").map {
                    Role(rawValue: String($0))
                }
                if !named.isEmpty, named.allSatisfy({ $0 != nil }) {
                    roles[name] = Set(named.compactMap { $0 })
                    secret = String(secret[..<last])
                }
            }
            pairs.append((name, secret))
        }
        try self.init(operators: pairs, roles: roles, secureCookie: try Self.secureCookie(environment: env))
        revenueRates = try Self.revenueRates(environment: env)
    }

    /// The rates file `IAP_REVENUE_RATES` names (see ``ExchangeRates``), read and checked now
    /// so that a bad one stops the process at start, not the revenue page; nil when unset.
    public static func revenueRates(environment env: EnvironmentReader) throws(SettingError) -> ExchangeRates? {
        guard let path = env.optional("IAP_REVENUE_RATES") else { return nil }
        do {
            return try ExchangeRates(contentsOfFile: path)
        } catch {
            throw SettingError(variable: "IAP_REVENUE_RATES", problem: "\(path): \(error.problem)")
        }
    }

    /// Whether the operator so named has `role`.
    public func may(_ role: Role, _ operatorName: String) -> Bool {
        operators.contains { $0.name == operatorName && $0.roles.contains(role) }
    }

    /// `IAP_CONSOLE_SECURE_COOKIE`; by default on, unless `IAP_HTTP_HOST` is a loopback
    /// address (where browsers are reached over plain HTTP and nothing else listens).
    public static func secureCookie(environment env: EnvironmentReader) throws(SettingError) -> Bool {
        let host = env.string("IAP_HTTP_HOST", default: "127.0.0.1").lowercased()
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        return try env.bool("IAP_CONSOLE_SECURE_COOKIE", default: !loopback)
    }

    /// Whether any operator may log in.
    public var isEnabled: Bool { !operators.isEmpty }

    /// The operator whose name and secret these are, compared by digest in constant time.
    func authenticate(name: String, secret: String) -> Operator? {
        let presented = Array(SHA256.hash(data: Array(secret.utf8)))
        var found: Operator?
        for candidate in operators {
            // Every secret is compared, so that timing tells nothing about which name exists.
            let same = constantTimeEqual(candidate.secretDigest, presented)
            if same, candidate.name == name { found = candidate }
        }
        return found
    }
}
