import Crypto
import Foundation
import PipelineCore

/// A logged-in operator, carried in a signed cookie: `name.expiry.signature`. The CSRF
/// token of a session is another signature over the cookie, so that a form posted from
/// another site (which cannot read the page) cannot carry it.
struct ConsoleSession: Sendable {
    static let cookieName = "iap_console"

    var operatorName: String
    var expires: Date
    /// The cookie's value, as issued.
    var token: String

    /// A new session for `operatorName`, valid for the configured lifetime.
    init(operatorName: String, now: Date, configuration: ConsoleConfiguration) {
        let expiry = Int(now.addingTimeInterval(configuration.sessionLifetime).timeIntervalSince1970)
        let payload = "\(operatorName).\(expiry)"
        self.operatorName = operatorName
        self.expires = Date(timeIntervalSince1970: TimeInterval(expiry))
        self.token = payload + "." + Self.sign(payload, configuration.signingKey)
    }

    /// The session a cookie value proves, if it is signed by us, unexpired, and its
    /// operator is still configured.
    init?(token: String, now: Date, configuration: ConsoleConfiguration) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int(parts[1]) else { return nil }
        let payload = "\(parts[0]).\(parts[1])"
        guard constantTimeEqual(Array(Self.sign(payload, configuration.signingKey).utf8), Array(parts[2].utf8)),
            TimeInterval(expiry) > now.timeIntervalSince1970,
            configuration.operators.contains(where: { $0.name == parts[0] })
        else { return nil }
        self.operatorName = String(parts[0])
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

    private static func sign(_ text: String, _ key: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
