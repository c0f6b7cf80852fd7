import DeadLetters
import Foundation
import Store

// MARK: - The console's read-only pages

extension OperatorConsole {
    /// Queue depths, throughput, and the open dead letters grouped by reason.
    func overview(_ session: ConsoleSession) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let depths = await review.queueDepths()
        let minute = try database.throughput(since: now().addingTimeInterval(-60))
        let hour = try database.throughput(since: now().addingTimeInterval(-3600))
        let groups = try review.groups()

        var body = "<h2>Throughput</h2><div class=\"cards\">"
        for (label, value) in [
            ("received, last minute", minute.received), ("credited, last minute", minute.credited),
            ("received, last hour", hour.received), ("credited, last hour", hour.credited),
            ("dead-lettered, last hour", hour.deadLettered),
        ] {
            body += "<div class=\"card\"><b>\(value)</b>\(HTML.escape(label))</div>"
        }
        body += "</div><h2>Queues</h2><table id=\"queues\"><tr><th>queue</th><th class=\"num\">messages</th></tr>"
        for depth in depths {
            body += "<tr><td><code>\(HTML.escape(depth.queue))</code></td><td class=\"num\">\(depth.messages.map(String.init) ?? "broker did not answer")</td></tr>"
        }
        body += "</table><h2>Dead letters by reason</h2>"
        if groups.isEmpty {
            body += "<p>No dead letter waits for review.</p>"
        } else {
            body += "<table id=\"groups\"><tr><th>reason</th><th class=\"num\">count</th><th>first seen</th><th>last seen</th><th></th></tr>"
            for group in groups {
                let reason = HTML.escape(group.reason)
                body += """
                    <tr><td><a href="/console/dead?reason=\(HTML.query(group.reason))">\(reason)</a></td>\
                    <td class="num">\(group.count)</td><td class=\"time\">\(HTML.time(group.firstDeadAt))</td><td class=\"time\">\(HTML.time(group.lastDeadAt))</td><td>\
                    \(HTML.confirmForm(action: "/console/groups/replay", csrf: csrf, button: "Replay group", confirm: "Replay all \(group.count) letters of “\(group.reason)”?", fields: "<input type=\"hidden\" name=\"group\" value=\"\(reason)\">"))
                    \(HTML.confirmForm(action: "/console/groups/discard", csrf: csrf, button: "Discard group", confirm: "Discard all \(group.count) letters of “\(group.reason)”?", fields: "<input type=\"hidden\" name=\"group\" value=\"\(reason)\"><input type=\"text\" name=\"reason\" placeholder=\"why (required)\" required>", danger: true))
                    </td></tr>
                    """
            }
            body += "</table>"
        }
        return ConsolePage(.ok, HTML.page(title: "Overview", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// The open dead letters a filter selects, with replay and discard for each.
    func deadLetters(_ session: ConsoleSession, _ query: FormValues) throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let filter = try DeadLetterFilter(
            reason: query["reason"], accountID: query["account"], olderThan: query["older_than"],
            newerThan: query["newer_than"])
        let letters = try review.letters(filter, limit: 500)
        func field(_ name: String, _ label: String, _ placeholder: String) -> String {
            "<label>\(label) <input type=\"text\" name=\"\(name)\" value=\"\(HTML.escape(query[name] ?? ""))\" placeholder=\"\(placeholder)\"></label> "
        }
        var body = """
            <form method="get" action="/console/dead">\(field("reason", "Reason", "exact reason"))\(field("account", "Account", "account id"))\
            \(field("older_than", "Older than", "e.g. 2h"))\(field("newer_than", "Newer than", "e.g. 7d"))<button type="submit">Filter</button></form>
            """
        if letters.isEmpty {
            body += "<p>No dead letter matches.</p>"
        } else {
            body += "<table id=\"letters\"><tr><th>letter</th><th>receipt</th><th>account</th><th>reason</th><th>attempts</th><th>dead at</th><th>status</th><th></th></tr>"
            for letter in letters {
                let id = HTML.escape(letter.id)
                body += """
                    <tr data-receipt="\(HTML.escape(letter.receiptID ?? ""))"><td><a href="/console/dead/\(id)">\(id)</a></td>\
                    <td>\(HTML.escape(letter.receiptID ?? "—"))</td><td>\(HTML.escape(letter.accountID ?? "—"))</td>\
                    <td>\(HTML.escape(letter.reason))</td><td class="num">\(letter.attempts)</td><td class=\"time\">\(HTML.time(letter.deadAt))</td>\
                    <td>\(letter.status.rawValue)</td><td>\(actions(letter, csrf: csrf))</td></tr>
                    """
            }
            body += "</table>"
            if letters.count == 500 { body += "<p>Showing the newest 500; narrow the filter to see others.</p>" }
        }
        return ConsolePage(.ok, HTML.page(title: "Dead letters", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Replay and discard buttons for an open letter.
    func actions(_ letter: DeadLetter, csrf: String) -> String {
        guard letter.status.isOpen else { return "" }
        let id = HTML.escape(letter.id)
        return HTML.confirmForm(
            action: "/console/dead/\(letter.id)/replay", csrf: csrf, button: "Replay",
            confirm: "Replay dead letter \(letter.id)?", fields: "<input type=\"hidden\" name=\"letter\" value=\"\(id)\">")
            + HTML.confirmForm(
                action: "/console/dead/\(letter.id)/discard", csrf: csrf, button: "Discard",
                confirm: "Discard dead letter \(letter.id)?",
                fields: "<input type=\"text\" name=\"reason\" placeholder=\"why (required)\" required>", danger: true)
    }

    /// One letter: its receipt, why it died, its body and headers, and its history.
    func deadLetter(_ session: ConsoleSession, id: String) throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let letter = try review.letter(id: id)
        var rows: [(String, String)] = [
            ("letter", letter.id), ("status", letter.status.rawValue), ("reason", letter.reason),
            ("attempts", String(letter.attempts)), ("last error", letter.lastError ?? ""),
            ("source queue", letter.sourceQueue ?? ""), ("dead at", HTML.time(letter.deadAt)),
            ("receipt", letter.receiptID ?? "none named"), ("account", letter.accountID ?? ""),
        ]
        if letter.resolvedBy != nil {
            rows += [("resolved by", letter.resolvedBy ?? ""), ("resolved because", letter.resolvedReason ?? ""), ("resolved at", HTML.time(letter.resolvedAt))]
        }
        if let receiptID = letter.receiptID {
            if let receipt = try database.receipt(id: receiptID) {
                rows += [("receipt status", receipt.status.rawValue + (receipt.reason.map { " (\($0))" } ?? ""))]
            } else if let notification = try database.notification(id: receiptID) {
                rows += [("notification status", notification.status.rawValue + (notification.reason.map { " (\($0))" } ?? ""))]
            }
        }
        var body = "<table>" + rows.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined() + "</table>"
        body += "<p>\(actions(letter, csrf: csrf))</p>"
        let text = String(data: letter.body, encoding: .utf8)
        body += "<h2>Body\(text == nil ? " (base64)" : "")</h2><pre>\(HTML.escape(text ?? letter.body.base64EncodedString()))</pre>"
        body += "<h2>Headers</h2><pre>\(HTML.escape(DeadLetterText.prettyJSON(letter.headers)))</pre>"
        if let receiptID = letter.receiptID {
            let history = try database.deadLetters(receiptID: receiptID)
            if history.count > 1 {
                body += "<h2>Every death of this receipt</h2><table><tr><th>letter</th><th>dead at</th><th>reason</th><th>attempts</th><th>status</th><th>by</th></tr>"
                for earlier in history {
                    body += "<tr><td><a href=\"/console/dead/\(HTML.escape(earlier.id))\">\(HTML.escape(earlier.id))</a></td><td class=\"time\">\(HTML.time(earlier.deadAt))</td><td>\(HTML.escape(earlier.reason))</td><td class=\"num\">\(earlier.attempts)</td><td>\(earlier.status.rawValue)</td><td>\(HTML.escape(earlier.resolvedBy ?? ""))</td></tr>"
                }
                body += "</table>"
            }
        }
        return ConsolePage(.ok, HTML.page(title: "Dead letter", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Receipts and notifications by receipt id, account id or Apple transaction id.
    func search(_ session: ConsoleSession, _ text: String?) throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        var body = """
            <form method="get" action="/console/receipts"><label>Receipt id, account id or Apple transaction id \
            <input type="search" name="q" id="q" value="\(HTML.escape(text ?? ""))" size="48"></label> <button type="submit">Search</button></form>
            """
        if let text {
            guard text.count <= 256 else {
                throw FilterError(field: "q", problem: "is longer than 256 characters; no id is")
            }
            let hits = try database.searchReceipts(text)
            if hits.isEmpty {
                body += "<p>Nothing found for “\(HTML.escape(text))”.</p>"
            } else {
                body += "<table id=\"hits\"><tr><th>kind</th><th>id</th><th>account</th><th>status</th><th>reason</th><th>attempts</th><th>received</th><th>updated</th></tr>"
                for hit in hits {
                    body += "<tr><td>\(hit.kind.rawValue)</td><td>\(HTML.escape(hit.id))</td><td>\(HTML.escape(hit.accountID ?? ""))</td><td>\(HTML.escape(hit.status))</td><td>\(HTML.escape(hit.reason ?? ""))</td><td class=\"num\">\(hit.attempts)</td><td class=\"time\">\(HTML.time(hit.createdAt))</td><td class=\"time\">\(HTML.time(hit.updatedAt))</td></tr>"
                }
                body += "</table>"
            }
        }
        return ConsolePage(.ok, HTML.page(title: "Receipts", operatorName: session.operatorName, csrf: csrf, body: body))
    }
}
