import Broker
import Database
import DeadLetters
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PipelineCore
import Repositories
import SettlementWriter

/// The operators' web console under `/console`, served by the intake: queue depths,
/// throughput, dead letters grouped by reason with replay and discard per message and per
/// group, and a receipt search. Plain server-rendered HTML; the only script is the
/// browser's confirmation dialog before a replay or discard.
///
/// Operators log in with their own name and secret (``ConsoleConfiguration``), apart from
/// the backend's API tokens, and get a signed, HttpOnly, SameSite=Strict session cookie.
/// Every route states what it needs in one table (``routes``): reading needs a login, and
/// whatever moves money or messages needs the `adjust` role; an operator without it is
/// answered 403 before anything is read. Every state-changing POST carries the session's
/// CSRF token; a missing or wrong one is answered 403 and changes nothing.
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
    /// Failed logins per client address and operator name, and per client address.
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

    // MARK: - Actions

    func replay(_ session: ConsoleSession, id: String) async throws -> ConsolePage {
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

    func discard(_ session: ConsoleSession, id: String, reason: String?) async throws -> ConsolePage {
        let letter = try await review.discard(id: id, by: session.operatorName, reason: reason ?? "")
        logger.info(
            "console: discarded",
            metadata: [
                "operator": "\(session.operatorName)", "dead_letter": "\(id)",
                "receipt_id": "\(letter.receiptID ?? "none")",
            ])
        return notice(session, title: "Discarded", "Discarded dead letter \(id): \(letter.resolvedReason ?? "").")
    }

    func replayGroup(_ session: ConsoleSession, _ form: FormValues) async throws -> ConsolePage {
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

    func discardGroup(_ session: ConsoleSession, _ form: FormValues) async throws -> ConsolePage {
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
