import Foundation
import HTTPTypes
import PipelineCore

/// Refuses a login posted from another site (login CSRF: an attacker's page logging the
/// operator's browser in as the attacker, or probing secrets with the operator's address).
///
/// Browsers send `Origin` with every POST, and `Referer` mostly; a login whose `Origin`
/// (else `Referer`) names another site is refused. One that names none (an old browser, a
/// privacy setting, `Origin: null` from a sandboxed frame) must carry the login form's token:
/// a signature over a random value the form's page put in an HttpOnly, SameSite=Strict
/// cookie, which another site can neither read nor make the browser send.
struct LoginForgeryGuard: Sendable {
    static let cookieName = "iap_console_login"
    static let fieldName = "login_csrf"

    /// Whose signing key makes the form's token.
    let configuration: ConsoleConfiguration

    /// The cookie value and form token for a login page: the browser's cookie if it has a
    /// well-formed one (two tabs then share it), else a new random one.
    func token(cookie: String?) -> (cookie: String, formToken: String) {
        // Echoed into Set-Cookie only if it is what we issue: 22 base64url characters.
        let reused = cookie.flatMap { value in
            value.utf8.count == 22
                && value.utf8.allSatisfy { $0.isBase64URL } ? value : nil
        }
        let value = reused ?? ConsoleSession.randomID()
        return (value, formToken(for: value))
    }

    /// Why the login must be refused, or nil to go on.
    func refusal(headers: HTTPFields, authority: String?, cookie: String?, formToken: String?) -> String? {
        let claimed = headers[.origin].flatMap { $0 == "null" ? nil : $0 } ?? headers[.referer]
        if let claimed {
            let ours = [authority, headers[HTTPField.Name("X-Forwarded-Host")!]].compactMap { $0 }
            guard ours.contains(where: { Self.sameOrigin(claimed, host: $0) }) else {
                return "this login was sent from another site (\(claimed.prefix(100))), not from the console's own page"
            }
            return nil
        }
        guard let cookie, let formToken,
            constantTimeEqual(Array(self.formToken(for: cookie).utf8), Array(formToken.utf8))
        else {
            return "this login names no origin and does not carry the login form's token; log in from the form"
        }
        return nil
    }

    private func formToken(for cookie: String) -> String {
        ConsoleSession.sign("login-csrf." + cookie, configuration.signingKey)
    }

    /// Whether `url` (an `Origin` or a `Referer`) is at `host`, the request's `Host`. The
    /// scheme is not compared: behind a TLS proxy the intake sees http where the browser saw
    /// https. A `Host` without a port is the URL's scheme's default port.
    static func sameOrigin(_ url: String, host: String) -> Bool {
        guard let claimed = URLComponents(string: url), let scheme = claimed.scheme?.lowercased(),
            let claimedHost = claimed.host?.lowercased(),
            let ours = URLComponents(string: "//" + host), let ourHost = ours.host?.lowercased()
        else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        return claimedHost == ourHost && (claimed.port ?? defaultPort) == (ours.port ?? defaultPort)
    }
}

extension UInt8 {
    fileprivate var isBase64URL: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
    }
}
