import Database
import DeadLetters
import Foundation
import HTTPTypes
import PipelineCore
import Repositories
import SettlementWriter

// MARK: - Accounts: find one by any id, read its story, grant and take back

extension OperatorConsole {
    /// Finds accounts by any id that leads to one, in one app or in every app (a player id
    /// finds the player's account in each); a single match opens its page.
    func accountSearch(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let text = query.text("q")
        let naming = try naming(query)
        var body =
            "<form method=\"get\" action=\"/console/accounts\">" + appPicker(naming)
            + "<label>Account id, receipt id, Apple "
        body += "transaction or original transaction id, order id, appAccountToken, Google order id or purchase token "
        body += "<input type=\"search\" "
        body += "name=\"q\" id=\"account-q\" value=\"\(HTML.escape(text ?? ""))\" size=\"48\"></label> "
        body += "<button type=\"submit\" id=\"find-account\">Find</button></form>"
        if let text {
            guard text.count <= 256 else {
                throw FilterError(field: "q", problem: "is longer than 256 characters; no id is")
            }
            let found = try await AccountHistoryRepository(database).accounts(matching: text, naming: naming)
            if found.count == 1 {
                return ConsolePage(
                    .seeOther, "", headers: [.location: "/console/accounts/" + HTML.query(found[0])])
            }
            if found.isEmpty {
                body += "<p>No account found for “\(HTML.escape(text))”.</p>"
            } else {
                body += "<p>“\(HTML.escape(text))” leads to \(found.count) accounts (a player of several apps, or "
                body += "a purchase claimed by one and credited to another):</p><ul id=\"accounts\">"
                for id in found {
                    let app = naming.apps.appID(of: id).map { " data-app=\"\(HTML.escape($0))\"" } ?? ""
                    body += "<li\(app)><a href=\"/console/accounts/\(HTML.query(id))\">"
                    body += "\(HTML.escape(naming.name(id)))</a></li>"
                }
                body += "</ul>"
            }
        }
        return ConsolePage(
            .ok, HTML.page(title: "Accounts", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// An account's balances, entitlements, timeline and webhooks, and, for operators who
    /// may post a grant, the grant form.
    func accountPage(_ session: ConsoleSession, id: String, query: FormValues) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let found: AccountStory?
        do {
            found = try await AccountHistoryRepository(database).story(of: id, now: now())
        } catch SQLError.decoding(let problem) {
            return unreadableAccountPage(session, id: id, problem: problem, csrf: csrf)
        }
        guard let story = found else {
            return .problem(
                .notFound, title: "No such account", message: "No account has the id “\(id)”.",
                operatorName: session.operatorName, csrf: csrf)
        }
        var body = ""
        if let adjustment = query["adjusted"] {
            body += "<p class=\"notice\" id=\"notice\">Adjustment \(HTML.escape(adjustment)) recorded.</p>"
        }
        let account = story.account
        body += "<div class=\"cards\" id=\"balances\">"
        for (currency, amount) in account.balances.sorted(by: { $0.key < $1.key }) {
            body += "<div class=\"card\" data-currency=\"\(HTML.escape(currency))\"><b>\(amount)</b>"
            body += "\(HTML.escape(currency))</div>"
        }
        if account.balances.isEmpty { body += "<div class=\"card\"><b>0</b>no balance</div>" }
        body += "</div>"
        if !account.entitlements.isEmpty {
            body += "<h2>Entitlements</h2>"
            body += HTML.table(
                id: "entitlements", columns: [("entitlement", .text), ("until", .time)],
                rows: account.entitlements.map { ("", [.text($0.name), .time($0.expiresAt)]) })
        }
        if !account.flags.isEmpty {
            body += "<h2>Flags</h2>"
            body += HTML.table(
                id: "flags", columns: [("flag", .text), ("currency", .text), ("amount", .num), ("when", .time)],
                rows: account.flags.map {
                    ("", [.text($0.reason.rawValue), .text($0.currency), .number($0.amount), .time($0.createdAt)])
                })
        }
        body += "<h2>Grant or take back</h2>" + adjustForm(session, accountID: id, csrf: csrf)
        body += "<h2>Timeline, oldest first</h2>"
        body += HTML.table(
            id: "timeline", columns: [("when", .time), ("what", .text), ("", .text), ("detail", .text)],
            rows: story.timeline.map { event in
                (
                    "data-kind=\"\(event.kind.rawValue)\"",
                    [.time(event.at), .text(event.kind.rawValue), .text(event.summary), Self.link(event.reference)]
                )
            })
        body +=
            "<h2>Webhooks sent, newest first</h2>"
            + Self.webhookTable(story.webhooks, naming: AccountNaming(apps: configuration.apps))
        return ConsolePage(
            .ok,
            HTML.page(
                title: "Account \(configuration.apps.label(id))", operatorName: session.operatorName, csrf: csrf,
                body: body))
    }

    /// An account whose stored state cannot be read: what cannot, and the grant forms, whose
    /// grant replaces an entitlement's unreadable end (an operator's grant reads nothing the
    /// account holds).
    private func unreadableAccountPage(_ session: ConsoleSession, id: String, problem: String, csrf: String)
        -> ConsolePage
    {
        var body = "<p class=\"error\" id=\"unreadable\">This account's stored state cannot be read: "
        body += "\(HTML.escape(problem)).</p><p>Grant the entitlement named again with a valid end date to replace "
        body += "it; the audit records the grant.</p>"
        body += "<h2>Grant or take back</h2>" + adjustForm(session, accountID: id, csrf: csrf)
        return ConsolePage(
            .internalServerError,
            HTML.page(title: "Account \(id)", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Where an event's detail is: a receipt, notification or transaction in the receipt
    /// search, a dead letter on its page.
    static func link(_ reference: AccountEvent.Reference) -> HTML.Cell {
        switch reference.kind {
        case .receipt, .notification, .transaction, .order:
            reference.id.isEmpty
                ? .text("") : .link(reference.id, to: "/console/receipts?q=" + HTML.query(reference.id))
        case .deadLetter: .link(reference.id, to: "/console/dead/" + HTML.query(reference.id))
        case .adjustment, .entitlement: .code(reference.id)
        }
    }

    /// The grant form, with a fresh idempotency key (a double click sends the same one), or
    /// why this operator cannot use it.
    func adjustForm(_ session: ConsoleSession, accountID: String, csrf: String) -> String {
        guard offers("accounts/:id/adjust", to: session) else {
            return readOnlyNote("granting and taking back", "accounts/:id/adjust")
        }
        let catalog = catalogs.catalog(forAccount: accountID)
        let (currencies, entitlements) = (catalog.currencies.sorted(), catalog.entitlements.sorted())
        func options(_ values: [String]) -> String {
            values.map { "<option value=\"\(HTML.escape($0))\">\(HTML.escape($0))</option>" }.joined()
        }
        let action = "/console/accounts/\(HTML.query(accountID))/adjust"
        // One key per form and page view: a double click repeats it, another form does not.
        func key() -> String { HTML.hidden("key", UUID().uuidString.lowercased()) }
        return """
            <form method="post" action="\(action)" id="adjust">\(HTML.csrfField(csrf))\(key())\
            <label>Currency <select name="currency" id="currency">\(options(currencies))</select></label> \
            <label>Amount <input type="text" name="amount" id="amount" placeholder="100, or -100 to take back" size="12"></label> \
            <label>Reason <input type="text" name="reason" id="reason" size="40" required></label> \
            <button type="submit" id="grant">Grant currency</button></form>
            <form method="post" action="\(action)" id="entitle">\(HTML.csrfField(csrf))\(key())\
            <label>Entitlement <select name="entitlement">\(options(entitlements))</select></label> \
            <label>Until <input type="date" name="until"></label> \
            <label>Reason <input type="text" name="reason" size="40" required></label> \
            <button type="submit">Grant entitlement</button></form>
            """
    }

    /// Applies a grant or revoke, then shows the page (the table admits only operators with
    /// the `adjust` role).
    func adjust(_ session: ConsoleSession, accountID: String, _ form: FormValues) async throws -> ConsolePage {
        let request = try AdjustmentRepository.Request.parse(
            accountID: accountID, currency: form["currency"], amount: form["amount"], entitlement: form["entitlement"],
            until: form["until"], reason: form["reason"], operatorName: session.operatorName,
            idempotencyKey: form["key"] ?? "")
        let record = try await AdjustmentRepository(database).apply(request, catalogs: catalogs, now: now())
        logger.info(
            "console: adjusted",
            metadata: [
                "operator": "\(session.operatorName)", "account_id": "\(accountID)", "adjustment": "\(record.id)",
                "replayed": "\(record.replayed)",
            ])
        // Post/redirect/get: a reload shows the page and posts nothing again.
        return ConsolePage(
            .seeOther, "",
            headers: [.location: "/console/accounts/\(HTML.query(accountID))?adjusted=\(HTML.query(record.id))"])
    }
}
