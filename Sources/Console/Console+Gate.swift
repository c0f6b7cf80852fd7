import Broker
import Database
import DeadLetters
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Repositories
import SettlementWriter

// MARK: - The gate every route passes: session, role, CSRF token, control characters

extension OperatorConsole {
    /// Serves one request of `route`, in this order, each step answering alone when it
    /// refuses: the console enabled (503), a session (a page: 303 to the login page for a
    /// browser, 401 for a script; a post: 401), the route's role (403, before the form is
    /// read or anything looked up), a post's CSRF token (403), no control character (400),
    /// then the route's handler, whose errors become pages that say nothing changed.
    func serve(_ route: ConsoleRoute, _ request: Request, id: String, address: String) async throws -> ConsolePage {
        guard configuration.isEnabled else { return disabled }
        switch route.action {
        case .open(let handle):
            return try await handle(self, request, address)
        case .page(let handle):
            guard let session = session(request) else { return notLoggedIn(request) }
            if let refusal = roleRefusal(route, session) { return refusal }
            if let refusal = controlCharacterRefusal(request, form: nil, session) { return refusal }
            return await answer(session) {
                try await handle(
                    self, session, ConsoleCall(id: id, query: FormValues(request.uri.query), form: .init(nil)))
            }
        case .change(let handle):
            guard let session = session(request) else {
                return .problem(
                    .unauthorized, title: "Not logged in",
                    message: "Log in first (your session may have expired). Nothing was changed.", operatorName: nil,
                    csrf: nil)
            }
            if let refusal = roleRefusal(route, session) { return refusal }
            let form = FormValues(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
            guard session.acceptsCSRF(form["csrf"], configuration) else {
                logger.warning(
                    "console: CSRF token missing or wrong", metadata: ["operator": "\(session.operatorName)"])
                return .problem(
                    .forbidden, title: "Forbidden",
                    message:
                        "The form's security token (CSRF) is missing or wrong, so nothing was changed. Reload the page and try again.",
                    operatorName: session.operatorName, csrf: session.csrfToken(configuration))
            }
            if let refusal = controlCharacterRefusal(request, form: form, session) { return refusal }
            return await answer(session) {
                try await handle(self, session, ConsoleCall(id: id, query: FormValues(request.uri.query), form: form))
            }
        }
    }

    private func session(_ request: Request) -> ConsoleSession? {
        guard let token = request.cookies[ConsoleSession.cookieName]?.value, !revocations.isRevoked(token) else {
            return nil
        }
        return ConsoleSession(token: token, now: now(), configuration: configuration)
    }

    var disabled: ConsolePage {
        .problem(
            .serviceUnavailable, title: "Console disabled",
            message:
                "The console is disabled: no operators are configured. Set IAP_CONSOLE_OPERATORS (name:secret, secrets of 16 characters or more) and restart the intake.",
            operatorName: nil, csrf: nil)
    }

    /// A page without a session: a browser (it accepts HTML) is sent to the login page, 303;
    /// any other client gets 401 with the login form.
    private func notLoggedIn(_ request: Request) -> ConsolePage {
        if request.headers[.accept]?.contains("text/html") == true {
            return ConsolePage(
                .seeOther, "<a href=\"/console/login\">Log in</a>", headers: [.location: "/console/login"])
        }
        return loginPage(.unauthorized, message: "Log in to use the console.", request)
    }

    /// 403 when the route needs a role the session's operator lacks; nil to go on.
    private func roleRefusal(_ route: ConsoleRoute, _ session: ConsoleSession) -> ConsolePage? {
        guard !route.admits(session.operatorName, configuration) else { return nil }
        logger.warning(
            "console: refused, role missing",
            metadata: [
                "operator": "\(session.operatorName)", "route": "\(route)", "needs": "\(route.access)",
            ])
        return .problem(
            .forbidden, title: "Forbidden",
            message:
                "Operator \(session.operatorName) may not use \(route): it needs the \(route.access) role "
                + "(IAP_CONSOLE_OPERATORS=name:secret:\(route.access)). Nothing was read or changed.",
            operatorName: session.operatorName, csrf: session.csrfToken(configuration))
    }

    /// 400 naming the first field of the query string or `form`, or the address itself (`%00`
    /// in an id), that holds a control character; nil when none does.
    private func controlCharacterRefusal(_ request: Request, form: FormValues?, _ session: ConsoleSession)
        -> ConsolePage?
    {
        let field =
            request.uri.path.removingPercentEncoding.map(FormValues.hasControlCharacter) == true
            ? "address" : FormValues(request.uri.query).controlCharacterField ?? form?.controlCharacterField
        return field.map { field in
            .problem(
                .badRequest, title: "Refused", message: Self.controlCharacterMessage(field),
                operatorName: session.operatorName, csrf: session.csrfToken(configuration))
        }
    }

    /// The handler's page, or what went wrong.
    private func answer(_ session: ConsoleSession, _ body: () async throws -> ConsolePage) async -> ConsolePage {
        do {
            return try await body()
        } catch {
            return problemPage(error, session)
        }
    }

    /// What went wrong, with the status it deserves; nothing was changed.
    private func problemPage(_ error: any Error, _ session: ConsoleSession) -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        func problem(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> ConsolePage {
            .problem(status, title: title, message: message, operatorName: session.operatorName, csrf: csrf)
        }
        if let error = error as? DeadLetterError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .unknownLetter: .notFound
                case .alreadyResolved: .conflict
                case .reasonRequired, .operatorRequired: .unprocessableContent
                }
            return problem(status, "Not done", error.message + ". Nothing was changed.")
        }
        if let error = error as? FilterError {
            return problem(.badRequest, "Bad filter", "\(error). Nothing was changed.")
        }
        if let refusal = error as? AdjustmentRepository.Refusal {
            let status: HTTPResponse.Status =
                switch refusal {
                case .invalid: .badRequest
                case .refused: .unprocessableContent
                case .keyReused: .conflict
                }
            return problem(status, "Not done", "\(refusal). Nothing was changed.")
        }
        if let error = error as? PublishError {
            return problem(
                .serviceUnavailable, "Broker refused",
                "The broker did not confirm the replay (\(error)); the letter waits as before.")
        }
        logger.error("console: request failed", metadata: ["error": "\(error)"])
        return problem(.internalServerError, "Error", "The request failed: \(error)")
    }
}
