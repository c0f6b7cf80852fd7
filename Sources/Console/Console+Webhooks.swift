import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

// MARK: - The webhook log in the console

extension OperatorConsole {
    /// The outbox, newest first, filtered by status and age; every failed one of a window
    /// can be sent again.
    func webhookLog(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let status = try query["status"].map { text in
            guard let status = WebhookLogEntry.Status(rawValue: text) else {
                throw FilterError(field: "status", problem: "is pending, delivered or failed, not '\(text.prefix(16))'")
            }
            return status
        }
        let since = try query["since"].map { text in
            guard let date = Age.date(text, now: now()) else {
                throw FilterError(field: "since", problem: "is an age (30m, 2h, 7d) or an ISO 8601 date")
            }
            return date
        }
        let naming = try naming(query)
        let entries = try await WebhookLogRepository(database).list(
            .init(
                status: status, accountID: query.text("account").map(naming.stored), since: since, limit: 500,
                app: naming.scope))
        var body = "<form method=\"get\" action=\"/console/webhooks\">" + appPicker(naming)
        body += "<label>Status <select name=\"status\">"
        body += "<option value=\"\">any</option>"
        for option in WebhookLogEntry.Status.allCases {
            let selected = option == status ? " selected" : ""
            body += "<option\(selected)>\(option.rawValue)</option>"
        }
        body += "</select></label> <label>Since <input type=\"text\" name=\"since\" placeholder=\"e.g. 24h\" "
        body += "value=\"\(HTML.escape(query["since"] ?? ""))\"></label> <button type=\"submit\">Filter</button></form>"
        body +=
            offers("webhooks/replay-failed", to: session)
            ? "<p>"
                + HTML.confirmForm(
                    action: "/console/webhooks/replay-failed", csrf: csrf,
                    button: "Send again every failed one of the last 24 hours",
                    confirm: "Send every webhook given up on in the last 24 hours again, with the same ids?",
                    fields: HTML.hidden("since", "24h")) + "</p>"
            : readOnlyNote("sending webhooks again", "webhooks/replay-failed")
        body += Self.webhookTable(entries, naming: naming)
        return ConsolePage(
            .ok, HTML.page(title: "Webhooks", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    static func webhookTable(_ entries: [WebhookLogEntry], naming: AccountNaming) -> String {
        guard !entries.isEmpty else { return "<p>No webhook matches.</p>" }
        return HTML.table(
            id: "webhooks",
            columns: [
                ("webhook", .text), ("type", .text), ("account", .text), ("status", .text), ("attempts", .num),
                ("last error", .text), ("next attempt", .time), ("written", .time),
            ],
            rows: entries.map { entry in
                (
                    "data-type=\"\(entry.type.rawValue)\"",
                    [
                        .link(entry.id, to: "/console/webhooks/" + HTML.query(entry.id)), .text(entry.type.rawValue),
                        accountLink(entry.accountID, naming),
                        .text(entry.status.rawValue), .number(entry.attempts), .text(entry.lastError ?? ""),
                        .time(entry.nextAttemptAt), .time(entry.createdAt),
                    ]
                )
            })
    }

    /// One webhook whole, with its body and, for an operator who may, a button to send it again.
    func webhook(_ session: ConsoleSession, id: String) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        guard let entry = try await WebhookLogRepository(database).webhook(id: id) else {
            return .problem(
                .notFound, title: "No such webhook", message: "No webhook has the id “\(id)”.",
                operatorName: session.operatorName, csrf: csrf)
        }
        var body = Self.webhookTable([entry], naming: AccountNaming(apps: configuration.apps))
        body +=
            offers("webhooks/:id/replay", to: session)
            ? "<p>"
                + HTML.confirmForm(
                    action: "/console/webhooks/\(HTML.query(id))/replay", csrf: csrf, button: "Send again",
                    confirm: "Send webhook \(id) again, with the same id?") + "</p>"
            : readOnlyNote("sending a webhook again", "webhooks/:id/replay")
        body += "<h2>Body</h2><pre>\(HTML.escape(entry.body ?? ""))</pre>"
        return ConsolePage(
            .ok, HTML.page(title: "Webhook", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Sends webhooks again with their ids: one, or every failed one since an age.
    func replayWebhooks(_ session: ConsoleSession, id: String?, _ form: FormValues) async throws -> ConsolePage {
        let store = WebhookLogRepository(database)
        let replayed: [String]
        if let id {
            replayed = try await store.replay(ids: [id], now: now())
            guard !replayed.isEmpty else {
                return .problem(
                    .notFound, title: "No such webhook", message: "No webhook has the id “\(id)”. Nothing was changed.",
                    operatorName: session.operatorName, csrf: session.csrfToken(configuration))
            }
        } else {
            guard let since = form["since"].flatMap({ Age.date($0, now: now()) }) else {
                throw FilterError(field: "since", problem: "is an age (30m, 2h, 7d) or an ISO 8601 date")
            }
            replayed = try await store.replayFailed(since: since, until: now(), now: now())
        }
        logger.info(
            "console: webhooks replayed",
            metadata: ["operator": "\(session.operatorName)", "count": "\(replayed.count)"])
        return notice(
            session, title: "Sent again",
            "\(replayed.count) webhook\(replayed.count == 1 ? "" : "s") will be sent again with the same id"
                + (id.map { " (\($0))" } ?? "") + ".")
    }
}
