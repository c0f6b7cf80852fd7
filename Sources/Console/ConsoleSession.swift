import Crypto
import Foundation
import PipelineCore

/// A logged-in operator, carried in a signed cookie: `name.expiry.id.signature`, where `id`
/// is 128 random bits of the system's CSPRNG, so that two logins of one operator in the
/// same second are two sessions, each revoked alone. The CSRF token of a session is another
/// signature over the cookie, so that a form posted from another site (which cannot read
/// the page) cannot carry it.
///
/// Signed rather than looked up: every intake with the same operators accepts the session.
struct ConsoleSession: Sendable {
    static let cookieName = "iap_console"

    var operatorName: String
    var expires: Date
    /// The cookie's value, as issued.
    var token: String

    /// A new session for `operatorName`, valid for the configured lifetime.
    init(operatorName: String, now: Date, configuration: ConsoleConfiguration) {
        let expiry = Int(now.addingTimeInterval(configuration.sessionLifetime).timeIntervalSince1970)
        let payload = "\(operatorName).\(expiry).\(Self.randomID())"
        self.operatorName = operatorName
        self.expires = Date(timeIntervalSince1970: TimeInterval(expiry))
        self.token = payload + "." + Self.sign(payload, configuration.signingKey)
    }

    /// The session a cookie value proves, if it is signed by us, unexpired, and its
    /// operator is still configured.
    init?(token: String, now: Date, configuration: ConsoleConfiguration) {
        // From the right: an operator's name may hold dots itself.
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 4, let expiry = Int(parts[parts.count - 3]), parts[parts.count - 2].utf8.count == 22
        else { return nil }
        let name = parts[..<(parts.count - 3)].joined(separator: ".")
        let payload = parts.dropLast().joined(separator: ".")
        guard constantTimeEqual(Array(Self.sign(payload, configuration.signingKey).utf8), Array(parts.last!.utf8)),
            TimeInterval(expiry) > now.timeIntervalSince1970,
            configuration.operators.contains(where: { $0.name == name })
        else { return nil }
        self.operatorName = name
        self.expires = Date(timeIntervalSince1970: TimeInterval(expiry))
        self.token = token
    }

    /// The token every state-changing form of this session carries.
    func csrfToken(_ configuration: ConsoleConfiguration) -> String {
        Self.sign("csrf." + token, configuration.signingKey)
    }

    func acceptsCSRF(_ presented: String?, _ configuration: ConsoleConfiguration) -> Bool {
        guard let presented else { return false }
        return constantTimeEqual(Array(csrfToken(configuration).utf8), Array(presented.utf8))
    }

    /// 128 bits from the system's CSPRNG (getrandom on Linux), base64url: 22 characters.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    static func sign(_ text: String, _ key: SymmetricKey) -> String {
        base64URL(Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)))
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
