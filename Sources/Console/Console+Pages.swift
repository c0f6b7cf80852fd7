import Database
import DeadLetters
import Foundation
import Repositories
import SettlementWriter

// MARK: - The console's read-only pages

extension OperatorConsole {
    /// Queue depths, throughput, and the open dead letters grouped by reason.
    func overview(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let depths = await review.queueDepths()
        let minute = try await ReceiptRepository(database).throughput(since: now().addingTimeInterval(-60))
        let hour = try await ReceiptRepository(database).throughput(since: now().addingTimeInterval(-3600))
        let groups = try await review.groups()

        var body = ""
        // A receiver failing for ten minutes or more: the backend is missing events.
        if let failing = try await WebhookLogRepository(database).failingReceiver(for: 600, now: now()) {
            body +=
                "<p class=\"alert\" id=\"webhooks-failing\">"
                + HTML.escape(
                    "The webhook receiver has been failing since \(ISO8601DateFormatter().string(from: failing.since)): "
                        + "\(failing.waiting) webhook\(failing.waiting == 1 ? "" : "s") waiting or given up on"
                        + (failing.lastError.map { "; last error: \($0)" } ?? "") + ". ")
                + "Review them on <a href=\"/console/webhooks?status=failed\">the webhook log</a> or with "
                + "<code>iap webhooks list --status failed</code>.</p>"
        }
        // Google refunds a Play purchase left unacknowledged for three days.
        let overdue = try await ConfirmationRepository(database).overdue(olderThan: 2 * 86_400, now: now())
        let total = overdue.values.reduce(0, +)
        if total > 0 {
            let stores = overdue.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            body +=
                "<p class=\"alert\" id=\"store-confirmations\">"
                + HTML.escape(
                    "\(total) purchase\(total == 1 ? " is" : "s are") still unconfirmed with the store (\(stores)) "
                        + "two days after the credit, or given up on: Google refunds a Play purchase left "
                        + "unacknowledged for three days. The fulfiller's log says why (look for \"store confirmation\")."
                )
                + "</p>"
        }
        body += "<h2>Throughput</h2><div class=\"cards\">"
        let figures = [
            ("received, last minute", minute.received), ("credited, last minute", minute.credited),
            ("received, last hour", hour.received), ("credited, last hour", hour.credited),
            ("dead-lettered, last hour", hour.deadLettered),
        ]
        for (label, value) in figures {
            body += "<div class=\"card\"><b>\(value)</b>\(HTML.escape(label))</div>"
        }
        body += "</div><h2>Activity</h2>" + (try await charts(query)) + "<h2>Queues</h2>"
        body += HTML.table(
            id: "queues", columns: [("queue", .text), ("messages", .num)],
            rows: depths.map { depth in
                let messages = depth.messages.map { HTML.Cell.number($0) } ?? .text("broker did not answer")
                return ("", [.code(depth.queue), messages])
            })
        body += "<h2>Reconciliation with Apple</h2>"
        body += Self.reconciliation(try await ReconciliationRepository(database).latest())
        body += "<h2>Call budgets (Apple's Server API, Google Play's quota), last minute</h2>"
        body += Self.callBudgets(
            try await CallBudgetRepository(database).usage(now: Int64(now().timeIntervalSince1970 * 1_000_000)))
        body += "<h2>Dead letters by reason</h2>"
        let (replays, discards) = (offers("groups/replay", to: session), offers("groups/discard", to: session))
        if groups.isEmpty {
            body += "<p>No dead letter waits for review.</p>"
        } else {
            if !replays && !discards { body += readOnlyNote("replaying and discarding a group", "groups/replay") }
            body += HTML.table(
                id: "groups",
                columns: [
                    ("reason", .text), ("count", .num), ("first seen", .time), ("last seen", .time), ("", .text),
                ],
                rows: groups.map { group in
                    let count = group.count
                    let replay =
                        !replays
                        ? ""
                        : HTML.confirmForm(
                            action: "/console/groups/replay", csrf: csrf, button: "Replay group",
                            confirm: "Replay all \(count) letters of “\(group.reason)”?",
                            fields: HTML.hidden("group", group.reason))
                    let discard =
                        !discards
                        ? ""
                        : HTML.confirmForm(
                            action: "/console/groups/discard", csrf: csrf, button: "Discard group",
                            confirm: "Discard all \(count) letters of “\(group.reason)”?",
                            fields: HTML.hidden("group", group.reason) + HTML.whyField, danger: true)
                    return (
                        "",
                        [
                            .link(group.reason, to: "/console/dead?reason=" + HTML.query(group.reason)),
                            .number(count), .time(group.firstDeadAt), .time(group.lastDeadAt),
                            HTML.Cell(html: replay + " " + discard),
                        ]
                    )
                })
        }
        return ConsolePage(
            .ok, HTML.page(title: "Overview", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// The latest look at Apple's Notification History: the drift it found and fixed.
    static func reconciliation(_ run: ReconciliationRun?) -> String {
        guard let run else {
            return "<p id=\"reconciliation\">No reconciliation has run yet: the fulfiller runs one every "
                + "<code>IAP_RECONCILE_INTERVAL_SECONDS</code> when the App Store Server API is configured, "
                + "and <code>iap reconcile</code> runs one now.</p>"
        }
        let format = ISO8601DateFormatter()
        var text =
            "Last run \(format.string(from: run.finishedAt)) (\(run.trigger == .schedule ? "scheduled" : "by an operator")"
            + "\(run.dryRun ? ", dry run" : "")), window \(format.string(from: run.windowStart)) to "
            + "\(format.string(from: run.windowEnd)): \(run.examined) undelivered listed by Apple, "
            + "\(run.missing) never stored, \(run.fed) fed."
        if let error = run.error { text += " It stopped short: \(error)" }
        return "<p id=\"reconciliation\">\(HTML.escape(text))</p>"
    }

    /// The call budgets in use by every process (Apple's per endpoint, Google's per quota
    /// bucket): calls, the busiest second against the rate spent and the store's limit, how far ahead turns are booked, and a `429`'s pause.
    static func callBudgets(_ budgets: [CallBudgetRepository.Usage]) -> String {
        guard !budgets.isEmpty else {
            return "<p id=\"budgets\">No call to Apple's Server API or Google Play's API in the last minute.</p>"
        }
        func rate(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        }
        return HTML.table(
            id: "budgets",
            columns: [
                ("budget", .text), ("calls", .num), ("busiest second", .num), ("spent of the store's limit", .text),
                ("booked ahead", .num), ("paused until", .time),
            ],
            rows: budgets.map { budget in
                let paused =
                    budget.pausedUntilMicros > 0
                    ? Date(timeIntervalSince1970: Double(budget.pausedUntilMicros) / 1e6) : nil
                return (
                    "",
                    [
                        .code(budget.name), .number(budget.calls), .number(budget.busiestSecond),
                        .text("\(rate(budget.perSecond))/s of \(rate(budget.limitPerSecond))/s"),
                        .text(String(format: "%.1f s", budget.bookedAheadSeconds)), .time(paused),
                    ]
                )
            })
    }

    /// The open dead letters a filter selects, with replay and discard for each.
    func deadLetters(_ session: ConsoleSession, _ query: FormValues) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let naming = try naming(query)
        var filter = try DeadLetterFilter(
            reason: query["reason"], accountID: query["account"], olderThan: query["older_than"],
            newerThan: query["newer_than"])
        filter.app = naming.scope
        filter.accountID = filter.accountID.map(naming.stored)
        let letters = try await review.letters(filter, limit: 500)
        func field(_ name: String, _ label: String, _ placeholder: String) -> String {
            let value = HTML.escape(query[name] ?? "")
            return "<label>\(label) <input type=\"text\" name=\"\(name)\" value=\"\(value)\" "
                + "placeholder=\"\(placeholder)\"></label> "
        }
        var body = "<form method=\"get\" action=\"/console/dead\">" + appPicker(naming)
        body += field("reason", "Reason", "exact reason") + field("account", "Account", "account id")
        body += field("older_than", "Older than", "e.g. 2h") + field("newer_than", "Newer than", "e.g. 7d")
        body += "<button type=\"submit\">Filter</button></form>"
        if letters.isEmpty {
            body += "<p>No dead letter matches.</p>"
        } else {
            body += letterReadOnlyNote(session)
            body += HTML.table(
                id: "letters",
                columns: [
                    ("letter", .text), ("receipt", .text), ("account", .text), ("reason", .text), ("attempts", .num),
                    ("dead at", .time), ("status", .text), ("", .text),
                ],
                rows: letters.map { letter in
                    (
                        "data-receipt=\"\(HTML.escape(letter.receiptID ?? ""))\"",
                        [
                            .link(letter.id, to: "/console/dead/" + letter.id), .text(letter.receiptID ?? "—"),
                            .text(letter.accountID.map(naming.name) ?? "—"), .text(letter.reason),
                            .number(letter.attempts),
                            .time(letter.deadAt), .text(letter.status.rawValue),
                            HTML.Cell(html: actions(letter, session, csrf: csrf)),
                        ]
                    )
                })
            if letters.count == 500 { body += "<p>Showing the newest 500; narrow the filter to see others.</p>" }
        }
        return ConsolePage(
            .ok, HTML.page(title: "Dead letters", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Replay and discard buttons for an open letter, those the operator may use.
    func actions(_ letter: DeadLetter, _ session: ConsoleSession, csrf: String) -> String {
        guard letter.status.isOpen else { return "" }
        var buttons: [String] = []
        if offers("dead/:id/replay", to: session) {
            buttons.append(
                HTML.confirmForm(
                    action: "/console/dead/\(letter.id)/replay", csrf: csrf, button: "Replay",
                    confirm: "Replay dead letter \(letter.id)?"))
        }
        if offers("dead/:id/discard", to: session) {
            buttons.append(
                HTML.confirmForm(
                    action: "/console/dead/\(letter.id)/discard", csrf: csrf, button: "Discard",
                    confirm: "Discard dead letter \(letter.id)?", fields: HTML.whyField, danger: true))
        }
        return buttons.joined(separator: " ")
    }

    /// Why a reader sees no replay or discard button on a letter; empty for an operator who
    /// may use one.
    func letterReadOnlyNote(_ session: ConsoleSession) -> String {
        offers("dead/:id/replay", to: session) || offers("dead/:id/discard", to: session)
            ? "" : readOnlyNote("replaying and discarding a dead letter", "dead/:id/replay")
    }

    /// One letter: its receipt, why it died, its body and headers, and its history.
    func deadLetter(_ session: ConsoleSession, id: String) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        let letter = try await review.letter(id: id)
        var rows: [(String, String)] = [
            ("letter", letter.id), ("status", letter.status.rawValue), ("reason", letter.reason),
            ("attempts", String(letter.attempts)), ("last error", letter.lastError ?? ""),
            ("source queue", letter.sourceQueue ?? ""), ("dead at", HTML.time(letter.deadAt)),
            ("receipt", letter.receiptID ?? "none named"), ("account", letter.accountID ?? ""),
        ]
        if letter.resolvedBy != nil {
            rows += [
                ("resolved by", letter.resolvedBy ?? ""), ("resolved because", letter.resolvedReason ?? ""),
                ("resolved at", HTML.time(letter.resolvedAt)),
            ]
        }
        if let receiptID = letter.receiptID {
            if let receipt = try await ReceiptRepository(database).receipt(id: receiptID) {
                rows += [("receipt status", receipt.status.rawValue + (receipt.reason.map { " (\($0))" } ?? ""))]
            } else if let notification = try await NotificationRepository(database).notification(id: receiptID) {
                rows += [
                    (
                        "notification status",
                        notification.status.rawValue + (notification.reason.map { " (\($0))" } ?? "")
                    )
                ]
            }
        }
        var body = "<table>"
        for (name, value) in rows { body += "<tr><th>\(HTML.escape(name))</th><td>\(HTML.escape(value))</td></tr>" }
        body += "</table><p>\(actions(letter, session, csrf: csrf))</p>"
        if letter.status.isOpen { body += letterReadOnlyNote(session) }
        let attempts = DeadLetterText.attemptLog(inHeaders: letter.headers)
        if !attempts.isEmpty {
            body += "<h2>Every failed attempt</h2><ol id=\"attempts\">"
            for line in attempts { body += "<li>\(HTML.escape(line))</li>" }
            body += "</ol>"
        }
        let deaths = DeathRecord.all(inHeaders: letter.headers)
        if !deaths.isEmpty {
            body += "<h2>Its way through the queues (x-death)</h2>"
            body += HTML.table(
                columns: [("queue", .text), ("reason", .text), ("times", .num), ("last", .time)],
                rows: deaths.map { ("", [.code($0.queue), .text($0.reason), .number($0.count), .time($0.time)]) })
        }
        let text = DeadLetterText.body(letter.body)
        body += "<h2>Body (\(text.encoding))</h2><pre>\(HTML.escape(text.text))</pre>"
        body += "<h2>Headers</h2><pre>\(HTML.escape(DeadLetterText.prettyJSON(letter.headers)))</pre>"
        if let receiptID = letter.receiptID {
            let history = try await DeadLetterRepository(database).deadLetters(receiptID: receiptID)
            if history.count > 1 {
                body += "<h2>Every death of this receipt</h2>"
                body += HTML.table(
                    columns: [
                        ("letter", .text), ("dead at", .time), ("reason", .text), ("attempts", .num), ("status", .text),
                        ("by", .text),
                    ],
                    rows: history.map { earlier in
                        (
                            "",
                            [
                                .link(earlier.id, to: "/console/dead/" + earlier.id), .time(earlier.deadAt),
                                .text(earlier.reason), .number(earlier.attempts), .text(earlier.status.rawValue),
                                .text(earlier.resolvedBy ?? ""),
                            ]
                        )
                    })
            }
        }
        return ConsolePage(
            .ok, HTML.page(title: "Dead letter", operatorName: session.operatorName, csrf: csrf, body: body))
    }

    /// Receipts and notifications by receipt id, account id or Apple transaction id.
    func search(_ session: ConsoleSession, _ text: String?) async throws -> ConsolePage {
        let csrf = session.csrfToken(configuration)
        var body = "<form method=\"get\" action=\"/console/receipts\"><label>Receipt id, account id, order id or "
        body += "store transaction id <input type=\"search\" name=\"q\" id=\"q\" value=\"\(HTML.escape(text ?? ""))\" "
        body += "size=\"48\"></label> <button type=\"submit\">Search</button></form>"
        if let text {
            guard text.count <= 256 else {
                throw FilterError(field: "q", problem: "is longer than 256 characters; no id is")
            }
            let hits = try await ReceiptRepository(database).searchReceipts(text)
            if hits.isEmpty {
                body += "<p>Nothing found for “\(HTML.escape(text))”.</p>"
            } else {
                body += HTML.table(
                    id: "hits",
                    columns: [
                        ("kind", .text), ("id", .text), ("account", .text), ("status", .text), ("reason", .text),
                        ("attempts", .num), ("received", .time), ("updated", .time),
                    ],
                    rows: hits.map { hit in
                        (
                            "",
                            [
                                .text(hit.kind.rawValue), .code(hit.id),
                                hit.accountID.map { .link($0, to: "/console/accounts/" + HTML.query($0)) } ?? .text(""),
                                .text(hit.status),
                                .text(hit.reason ?? ""), .number(hit.attempts), .time(hit.createdAt),
                                .time(hit.updatedAt),
                            ]
                        )
                    })
            }
            // Purchases credited to another account than the one that sent them (binding rules).
            let conflicts = try await OrderRepository(database).bindingConflicts(involving: text)
            if !conflicts.isEmpty {
                body += "<h2>Binding conflicts</h2>"
                body += HTML.table(
                    id: "conflicts",
                    columns: [
                        ("transaction", .text), ("receipt", .text), ("sent by", .text), ("credited to", .text),
                        ("bound by", .text), ("when", .time),
                    ],
                    rows: conflicts.map { conflict in
                        (
                            "",
                            [
                                .code(conflict.transactionID), .code(conflict.receiptID ?? ""),
                                .text(conflict.claimantAccountID), .text(conflict.creditedAccountID),
                                .text(conflict.binding), .time(conflict.createdAt),
                            ]
                        )
                    })
            }
        }
        return ConsolePage(
            .ok, HTML.page(title: "Receipts", operatorName: session.operatorName, csrf: csrf, body: body))
    }
}
