import Broker
import DeadLetters
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PipelineCore
import Store

/// The operators' web console under `/console`, served by the intake: queue depths,
/// throughput, dead letters grouped by reason with replay and discard per message and per
/// group, and a receipt search. Plain server-rendered HTML; the only script is the
/// browser's confirmation dialog before a replay or discard.
///
/// Operators log in with their own name and secret (``ConsoleConfiguration``), apart from
/// the backend's API tokens, and get a signed, HttpOnly, SameSite=Strict session cookie.
/// Every state-changing POST carries the session's CSRF token, checked here; a missing or
/// wrong one is answered 403 and changes nothing.
///
/// ```swift
/// let console = OperatorConsole(configuration: try ConsoleConfiguration(environment: env), review: review, database: db, logger: logger)
/// intake.additionalRoutes = { console.register(on: $0) }
/// ```
public struct OperatorConsole: Sendable {
    let configuration: ConsoleConfiguration
    let review: DeadLetterReview
    let database: any SQLDatabase
    /// What operators may grant an account: the currencies and entitlements of its app's catalog.
    let catalogs: AppCatalogs
    let logger: Logger
    let now: @Sendable () -> Date
    /// Failed logins per client address and operator name.
    let throttle: LoginThrottle
    /// Sessions ended by a logout.
    let revocations = SessionRevocations()
    /// Refuses logins posted from other sites.
    let loginGuard: LoginForgeryGuard

    public init(
        configuration: ConsoleConfiguration, review: DeadLetterReview, database: any SQLDatabase, catalog: Catalog,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.review = review
        self.database = database
        self.catalogs = configuration.catalogs ?? AppCatalogs(catalog)
        self.logger = logger
        self.now = now
        self.throttle = LoginThrottle(policy: configuration.loginThrottle)
        self.loginGuard = LoginForgeryGuard(configuration: configuration)
    }

    /// Adds the console's routes under `/console`.
    public func register<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        let console = router.group("console")
        console.get { request, _ in
            try await page(request) { try await overview($0, FormValues(request.uri.query)) }
        }
        console.get("login") { request, _ in loginForm(request) }
        console.post("login") { request, context in
            try await login(request, from: context.remoteAddress?.ipAddress ?? "unknown")
        }
        console.post("logout") { request, _ in try await change(request) { session, _ in logout(session) } }
        console.get("dead") { request, _ in
            try await page(request) { try await deadLetters($0, FormValues(request.uri.query)) }
        }
        console.get("dead/:id") { request, context in
            try await page(request) { try await deadLetter($0, id: pathID(context)) }
        }
        console.post("dead/:id/replay") { request, context in
            try await change(request) { session, _ in
                try await replay(session, id: pathID(context))
            }
        }
        console.post("dead/:id/discard") { request, context in
            try await change(request) { session, form in
                try await discard(session, id: pathID(context), reason: form.text("reason"))
            }
        }
        console.post("groups/replay") { request, _ in
            try await change(request) { session, form in try await replayGroup(session, form) }
        }
        console.post("groups/discard") { request, _ in
            try await change(request) { session, form in try await discardGroup(session, form) }
        }
        console.get("receipts") { request, _ in
            try await page(request) { try await search($0, FormValues(request.uri.query).text("q")) }
        }
        console.get("webhooks") { request, _ in
            try await page(request) { try await webhookLog($0, FormValues(request.uri.query)) }
        }
        console.get("webhooks/:id") { request, context in
            try await page(request) { try await webhook($0, id: pathID(context)) }
        }
        console.post("webhooks/:id/replay") { request, context in
            try await change(request) { session, form in
                try await replayWebhooks(session, id: pathID(context), form)
            }
        }
        console.post("webhooks/replay-failed") { request, _ in
            try await change(request) { session, form in try await replayWebhooks(session, id: nil, form) }
        }
        console.get("accounts") { request, _ in
            try await page(request) { try await accountSearch($0, FormValues(request.uri.query)) }
        }
        console.get("accounts/:id") { request, context in
            try await page(request) {
                try await accountPage(
                    $0, id: pathID(context), query: FormValues(request.uri.query))
            }
        }
        console.post("accounts/:id/adjust") { request, context in
            try await change(request) { session, form in
                try await adjust(session, accountID: pathID(context), form)
            }
        }
    }

    /// The `:id` of a path, percent-decoded: a link writes another app's `racer/player-1`
    /// as `racer%2Fplayer-1`, one path component, which the router hands over as written.
    private func pathID(_ context: some RequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    // MARK: - Sessions and CSRF

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

    /// A page for a logged-in operator. Without a session a browser (it accepts HTML) is sent
    /// to the login page, 303; any other client gets 401 with the login form.
    private func page(_ request: Request, _ body: (ConsoleSession) async throws -> ConsolePage) async throws
        -> ConsolePage
    {
        guard configuration.isEnabled else { return disabled }
        guard let session = session(request) else {
            if request.headers[.accept]?.contains("text/html") == true {
                return ConsolePage(
                    .seeOther, "<a href=\"/console/login\">Log in</a>", headers: [.location: "/console/login"])
            }
            return loginPage(.unauthorized, message: "Log in to use the console.", request)
        }
        if let refusal = controlCharacterRefusal(request, form: nil, session) { return refusal }
        do {
            return try await body(session)
        } catch {
            return problemPage(error, session)
        }
    }

    /// A state-changing POST: a logged-in operator and the session's CSRF token, or nothing changes.
    private func change(
        _ request: Request, _ body: (ConsoleSession, FormValues) async throws -> ConsolePage
    ) async throws -> ConsolePage {
        guard configuration.isEnabled else { return disabled }
        guard let session = session(request) else {
            return .problem(
                .unauthorized, title: "Not logged in",
                message: "Log in first (your session may have expired). Nothing was changed.", operatorName: nil,
                csrf: nil)
        }
        let form = FormValues(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
        guard session.acceptsCSRF(form["csrf"], configuration) else {
            logger.warning("console: CSRF token missing or wrong", metadata: ["operator": "\(session.operatorName)"])
            return .problem(
                .forbidden, title: "Forbidden",
                message:
                    "The form's security token (CSRF) is missing or wrong, so nothing was changed. Reload the page and try again.",
                operatorName: session.operatorName, csrf: session.csrfToken(configuration))
        }
        if let refusal = controlCharacterRefusal(request, form: form, session) { return refusal }
        do {
            return try await body(session, form)
        } catch {
            return problemPage(error, session)
        }
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

    /// What went wrong, with the status it deserves; nothing was changed.
    private func problemPage(_ error: any Error, _ session: ConsoleSession) -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        if let error = error as? DeadLetterError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .unknownLetter: .notFound
                case .alreadyResolved: .conflict
                case .reasonRequired, .operatorRequired: .unprocessableContent
                }
            return .problem(
                status, title: "Not done", message: error.message + ". Nothing was changed.",
                operatorName: session.operatorName, csrf: csrf)
        }
        if let error = error as? FilterError {
            return .problem(
                .badRequest, title: "Bad filter", message: "\(error). Nothing was changed.",
                operatorName: session.operatorName, csrf: csrf)
        }
        if let refusal = error as? AdjustmentStore.Refusal {
            let status: HTTPResponse.Status =
                switch refusal {
                case .invalid: .badRequest
                case .refused: .unprocessableContent
                case .keyReused: .conflict
                }
            return .problem(
                status, title: "Not done", message: "\(refusal). Nothing was changed.",
                operatorName: session.operatorName, csrf: csrf)
        }
        if let error = error as? PublishError {
            return .problem(
                .serviceUnavailable, title: "Broker refused",
                message: "The broker did not confirm the replay (\(error)); the letter waits as before.",
                operatorName: session.operatorName, csrf: csrf)
        }
        logger.error("console: request failed", metadata: ["error": "\(error)"])
        return .problem(
            .internalServerError, title: "Error", message: "The request failed: \(error)",
            operatorName: session.operatorName,
            csrf: csrf)
    }

    // MARK: - Actions

    private func replay(_ session: ConsoleSession, id: String) async throws -> ConsolePage {
        let letter = try await review.replay(id: id, by: session.operatorName)
        logger.info(
            "console: replayed",
            metadata: [
                "operator": "\(session.operatorName)", "dead_letter": "\(id)",
                "receipt_id": "\(letter.receiptID ?? "none")",
            ])
        return notice(
            session, title: "Replayed",
            "Replayed dead letter \(id)" + (letter.receiptID.map { " (receipt \($0))" } ?? "")
                + ": it is back on the \(review.routingKey(for: letter)) queue.")
    }

    private func discard(_ session: ConsoleSession, id: String, reason: String?) async throws -> ConsolePage {
        let letter = try await review.discard(id: id, by: session.operatorName, reason: reason ?? "")
        logger.info(
            "console: discarded",
            metadata: [
                "operator": "\(session.operatorName)", "dead_letter": "\(id)",
                "receipt_id": "\(letter.receiptID ?? "none")",
            ])
        return notice(session, title: "Discarded", "Discarded dead letter \(id): \(letter.resolvedReason ?? "").")
    }

    private func replayGroup(_ session: ConsoleSession, _ form: FormValues) async throws -> ConsolePage {
        guard let reason = form.text("group") else {
            throw FilterError(field: "group", problem: "is required: the reason the group shares")
        }
        let summary = try await review.replay(DeadLetterFilter(reason: reason), by: session.operatorName)
        logger.info(
            "console: replayed a group",
            metadata: ["operator": "\(session.operatorName)", "group": "\(reason)", "replayed": "\(summary.done)"])
        return notice(
            session, title: "Group replayed", "Group “\(reason)”: " + Self.describe(summary, verb: "replayed"))
    }

    private func discardGroup(_ session: ConsoleSession, _ form: FormValues) async throws -> ConsolePage {
        guard let group = form.text("group") else {
            throw FilterError(field: "group", problem: "is required: the reason the group shares")
        }
        let summary = try await review.discard(
            DeadLetterFilter(reason: group), by: session.operatorName, reason: form.text("reason") ?? "")
        return notice(
            session, title: "Group discarded", "Group “\(group)”: " + Self.describe(summary, verb: "discarded"))
    }

    static func describe(_ summary: BulkSummary, verb: String) -> String {
        var text = "\(verb) \(summary.done), failed \(summary.failed), skipped \(summary.skipped)."
        for failure in summary.failures.prefix(10) { text += " \(failure.id): \(failure.error)." }
        return text
    }

    func notice(_ session: ConsoleSession, title: String, _ message: String) -> ConsolePage {
        ConsolePage(
            .ok,
            HTML.page(
                title: title, operatorName: session.operatorName, csrf: session.csrfToken(configuration),
                body: """
                    <p class="notice" id="notice">\(HTML.escape(message))</p>
                    <p><a href="/console/dead">Dead letters</a> · <a href="/console">Overview</a></p>
                    """))
    }
}
