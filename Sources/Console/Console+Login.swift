import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PipelineCore

// MARK: - Logging in and out

extension OperatorConsole {
    func loginForm(_ request: Request) -> ConsolePage {
        guard configuration.isEnabled else { return disabled }
        return loginPage(.ok, message: nil)
    }

    func loginPage(_ status: HTTPResponse.Status, message: String?, headers: HTTPFields = [:]) -> ConsolePage {
        ConsolePage(
            status,
            HTML.page(
                title: "Log in", operatorName: nil, csrf: nil,
                body: """
                    \(message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? "")
                    <form method="post" action="/console/login">
                    <p><label>Operator <input type="text" name="name" id="name" autocomplete="username" required></label></p>
                    <p><label>Secret <input type="password" name="secret" id="secret" autocomplete="current-password" required></label></p>
                    <p><button type="submit" id="login">Log in</button></p></form>
                    """),
            headers: headers)
    }

    /// Checks a login, unless its address or operator name has failed too often lately:
    /// then 429 with `Retry-After`, and the secret is not even compared.
    func login(_ request: Request, from address: String) async throws -> ConsolePage {
        guard configuration.isEnabled else { return disabled }
        let form = FormValues(String(buffer: try await request.body.collect(upTo: 16 * 1024)))
        let name = form["name"] ?? ""
        let keys = LoginThrottle.keys(address: address, operatorName: name)
        // Untrusted: escaped and bounded, so a name cannot forge log lines or drive a terminal.
        let who: Logger.Metadata = ["operator": "\(LogText.untrusted(name, limit: 64))", "client": "\(address)"]
        if let wait = throttle.wait(keys) {
            let seconds = max(1, Int(wait.seconds.rounded(.up)))
            logger.warning("console: login refused, too many failures", metadata: who)
            return loginPage(
                .tooManyRequests, message: "Too many failed logins. Try again in \(seconds) s.",
                headers: [.retryAfter: String(seconds)])
        }
        guard let secret = form["secret"], let found = configuration.authenticate(name: name, secret: secret) else {
            throttle.failed(keys)
            logger.warning("console: failed login", metadata: who)
            return loginPage(.unauthorized, message: "Wrong operator name or secret.")
        }
        throttle.succeeded(keys)
        let session = ConsoleSession(operatorName: found.name, now: now(), configuration: configuration)
        logger.info("console: operator logged in", metadata: ["operator": "\(found.name)"])
        return ConsolePage(
            .seeOther, "<a href=\"/console\">Continue</a>",
            headers: [
                .location: "/console", .setCookie: cookie(session.token, maxAge: Int(configuration.sessionLifetime)),
            ])
    }

    /// Ends the session here, not only in the browser: its cookie and CSRF token stop working.
    func logout(_ session: ConsoleSession) -> ConsolePage {
        revocations.revoke(session, now: now())
        logger.info("console: operator logged out", metadata: ["operator": "\(session.operatorName)"])
        return ConsolePage(
            .seeOther, "<a href=\"/console/login\">Log in</a>",
            headers: [.location: "/console/login", .setCookie: cookie("", maxAge: 0)])
    }

    private func cookie(_ value: String, maxAge: Int) -> String {
        Cookie(
            name: ConsoleSession.cookieName, value: value, maxAge: maxAge, path: "/console",
            secure: configuration.secureCookie,
            httpOnly: true, sameSite: .strict
        ).description
    }
}
