import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PipelineCore

// MARK: - Logging in and out

extension OperatorConsole {
    func loginForm(_ request: Request) -> ConsolePage {
        loginPage(.ok, message: nil, request)
    }

    /// The login form, with its token against cross-site logins (``LoginForgeryGuard``) and
    /// the cookie the token is checked against.
    func loginPage(
        _ status: HTTPResponse.Status, message: String?, _ request: Request, headers: HTTPFields = [:]
    ) -> ConsolePage {
        let (cookieValue, formToken) = loginGuard.token(cookie: request.cookies[LoginForgeryGuard.cookieName]?.value)
        var headers = headers
        headers.append(
            HTTPField(name: .setCookie, value: cookie(LoginForgeryGuard.cookieName, cookieValue, maxAge: nil)))
        return ConsolePage(
            status,
            HTML.page(
                title: "Log in", operatorName: nil, csrf: nil,
                body: """
                    \(message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? "")
                    <form method="post" action="/console/login">\(HTML.hidden(LoginForgeryGuard.fieldName, formToken))
                    <p><label>Operator <input type="text" name="name" id="name" autocomplete="username" required></label></p>
                    <p><label>Secret <input type="password" name="secret" id="secret" autocomplete="current-password" required></label></p>
                    <p><button type="submit" id="login">Log in</button></p></form>
                    """),
            headers: headers)
    }

    /// Checks a login, unless it comes from another site (403), holds a control character
    /// (400), or its operator name from its address, or its address whatever the names, has
    /// failed too often lately (``LoginThrottle``): then 429 with `Retry-After`, and the
    /// secret is not even compared.
    func login(_ request: Request, from address: String) async throws -> ConsolePage {
        let form = FormValues(String(buffer: try await request.body.collect(upTo: 16 * 1024)))
        if let refusal = loginGuard.refusal(
            headers: request.headers, authority: request.head.authority,
            cookie: request.cookies[LoginForgeryGuard.cookieName]?.value, formToken: form[LoginForgeryGuard.fieldName])
        {
            logger.warning(
                "console: login refused, cross-site",
                metadata: ["client": "\(address)", "problem": "\(LogText.untrusted(refusal, limit: 200))"])
            return loginPage(.forbidden, message: "Login refused: \(refusal).", request)
        }
        if let field = form.controlCharacterField {
            return loginPage(.badRequest, message: Self.controlCharacterMessage(field), request)
        }
        let name = form["name"] ?? ""
        let keys = LoginThrottle.keys(address: address, operatorName: name)
        // Untrusted: escaped and bounded, so a name cannot forge log lines or drive a terminal.
        let who: Logger.Metadata = ["operator": "\(LogText.untrusted(name, limit: 64))", "client": "\(address)"]
        if let wait = throttle.wait(keys) {
            let seconds = max(1, Int(wait.seconds.rounded(.up)))
            logger.warning("console: login refused, too many failures", metadata: who)
            return loginPage(
                .tooManyRequests, message: "Too many failed logins. Try again in \(seconds) s.", request,
                headers: [.retryAfter: String(seconds)])
        }
        guard let secret = form["secret"], let found = configuration.authenticate(name: name, secret: secret) else {
            throttle.failed(keys)
            logger.warning("console: failed login", metadata: who)
            return loginPage(.unauthorized, message: "Wrong operator name or secret.", request)
        }
        throttle.succeeded(keys)
        let session = ConsoleSession(operatorName: found.name, now: now(), configuration: configuration)
        logger.info("console: operator logged in", metadata: ["operator": "\(found.name)"])
        return ConsolePage(
            .seeOther, "<a href=\"/console\">Continue</a>",
            headers: [
                .location: "/console",
                .setCookie: cookie(
                    ConsoleSession.cookieName, session.token, maxAge: Int(configuration.sessionLifetime)),
            ])
    }

    /// Ends this session here, not only in the browser: its cookie and CSRF token stop
    /// working. Other sessions of the operator (another browser) go on.
    func logout(_ session: ConsoleSession) -> ConsolePage {
        revocations.revoke(session, now: now())
        logger.info("console: operator logged out", metadata: ["operator": "\(session.operatorName)"])
        return ConsolePage(
            .seeOther, "<a href=\"/console/login\">Log in</a>",
            headers: [.location: "/console/login", .setCookie: cookie(ConsoleSession.cookieName, "", maxAge: 0)])
    }

    /// What a form or address with a control character is told; nothing was changed.
    static func controlCharacterMessage(_ field: String) -> String {
        "The field “\(field)” holds a control character (such as NUL, a line break or an escape), which no "
            + "console field takes. Nothing was changed."
    }

    /// HttpOnly, SameSite=Strict, under `/console`, `Secure` when configured; `maxAge` nil
    /// lasts until the browser closes.
    private func cookie(_ name: String, _ value: String, maxAge: Int?) -> String {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: "/console", secure: configuration.secureCookie,
            httpOnly: true, sameSite: .strict
        ).description
    }
}
