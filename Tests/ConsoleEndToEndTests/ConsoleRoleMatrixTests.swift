import Database
import DatabaseSQLite
import Foundation
import Hummingbird
import PipelineTesting
import Repositories
import SettlementWriter
import Testing

@testable import Console
@testable import EndToEndSupport

/// The console's table of routes and roles against what the intake serves and what
/// `docs/console.md` says, and every route asked by every role over a real socket: not
/// logged in, bob who reads, alice with the `adjust` role. A refusal reads nothing (no
/// statement reaches the database) and changes nothing (the rows are read back after).
@Suite struct ConsoleRoleMatrixTests {
    /// A request that exercises one route, and the status an operator it admits gets.
    struct Sample {
        var path: String
        var form: [String: String] = [:]
        var admitted: Int
    }

    /// One sample per route of the table, by the route's description: a route added to the
    /// table without one fails ``everyRoleGetsWhatTheTableSaysOnEveryRoute()``.
    static func samples(webhook: String) -> [String: Sample] {
        let player = ConsoleRoleFixture.player
        return [
            "GET /console": Sample(path: "/console", admitted: 200),
            "GET /console/login": Sample(path: "/console/login", admitted: 200),
            "POST /console/login": Sample(
                path: "/console/login", form: ["name": "alice", "secret": LiveConsole.secret], admitted: 303),
            "POST /console/logout": Sample(path: "/console/logout", admitted: 303),
            "GET /console/dead": Sample(path: "/console/dead", admitted: 200),
            "GET /console/dead/:id": Sample(path: "/console/dead/dl_matrix_replay", admitted: 200),
            "POST /console/dead/:id/replay": Sample(path: "/console/dead/dl_matrix_replay/replay", admitted: 200),
            "POST /console/dead/:id/discard": Sample(
                path: "/console/dead/dl_matrix_discard/discard", form: ["reason": "matrix"], admitted: 200),
            "POST /console/groups/replay": Sample(
                path: "/console/groups/replay", form: ["group": "matrix group replay"], admitted: 200),
            "POST /console/groups/discard": Sample(
                path: "/console/groups/discard", form: ["group": "matrix group discard", "reason": "matrix"],
                admitted: 200),
            "GET /console/receipts": Sample(path: "/console/receipts?q=\(player)", admitted: 200),
            "GET /console/webhooks": Sample(path: "/console/webhooks", admitted: 200),
            "GET /console/webhooks/:id": Sample(path: "/console/webhooks/\(webhook)", admitted: 200),
            "POST /console/webhooks/:id/replay": Sample(path: "/console/webhooks/\(webhook)/replay", admitted: 200),
            "POST /console/webhooks/replay-failed": Sample(
                path: "/console/webhooks/replay-failed", form: ["since": "24h"], admitted: 200),
            "GET /console/revenue": Sample(path: "/console/revenue?window=12m", admitted: 200),
            "GET /console/revenue.csv": Sample(path: "/console/revenue.csv?window=90d", admitted: 200),
            "GET /console/accounts": Sample(path: "/console/accounts?q=nobody-by-this-id", admitted: 200),
            "GET /console/accounts/:id": Sample(path: "/console/accounts/\(player)", admitted: 200),
            "POST /console/accounts/:id/adjust": Sample(
                path: "/console/accounts/\(player)/adjust",
                form: ["currency": "coins", "amount": "5", "reason": "matrix", "key": "matrix-key-1"], admitted: 303),
        ]
    }

    @Test func everyRouteTheConsoleServesIsInTheTableAndTheDocsWithItsRole() throws {
        // Given the routes the intake's router holds under /console, the console's registered among them
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let intake = try LiveConsole.intake(
            { _ in }, database: try SQLiteDatabase(path: directory.file("iap.sqlite")), lines: LiveConsole.LogLines())
        let served = Set(
            intake.router().routes.map { "\($0.method) \($0.path)" }.filter {
                $0.split(separator: " ").last?.hasPrefix("/console") == true
            })

        // Then they are exactly the table's: none registered apart from it, so none without a role
        let table = OperatorConsole.routes
        #expect(served == Set(table.map { "\($0.method) \($0.routerPath)" }))
        #expect(Set(table.map(\.description)).count == table.count, "a route is in the table twice")

        // And docs/console.md lists the same routes with the same needs
        let docs = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/console.md"), encoding: .utf8)
        let documented = Set(
            docs.split(separator: "\n").compactMap { line -> String? in
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count == 3, ["GET", "POST"].contains(cells[0]) else { return nil }
                let strip = { (text: String) in text.replacingOccurrences(of: "`", with: "") }
                return "\(cells[0]) \(strip(cells[1])) \(strip(cells[2]))"
            })
        #expect(documented == Set(table.map { "\($0) \($0.access)" }))
    }

    @Test func everyRoleGetsWhatTheTableSaysOnEveryRoute() async throws {
        try await ConsoleRoleFixture.run { fixture in
            let console = fixture.console
            let samples = Self.samples(webhook: fixture.webhook)
            for route in OperatorConsole.routes {
                #expect(samples[route.description] != nil, "no sample for \(route): add one to the matrix")
            }
            let routes = OperatorConsole.routes.compactMap { route in samples[route.description].map { (route, $0) } }
            let before = try await fixture.books()
            func ask(_ route: ConsoleRoute, _ sample: Sample, cookie: String?, csrf: String?)
                async throws -> RawHTTPConnection.Response?
            {
                _ = console.statements?.take()
                return try await console.send(
                    route.method.rawValue, sample.path,
                    form: route.method == .post ? sample.form.merging(csrf.map { ["csrf": $0] } ?? [:]) { $1 } : nil,
                    cookie: cookie, headers: ["Origin": "http://127.0.0.1"])
            }

            // Not logged in: the open routes answer, every other is 401 and reads nothing
            for (route, sample) in routes {
                let answer = try await ask(route, sample, cookie: nil, csrf: "forged")
                if route.access == .open {
                    #expect(answer?.status == sample.admitted, "\(route): \(answer?.status ?? 0)")
                } else {
                    #expect(answer?.status == 401, "\(route): \(answer?.status ?? 0)")
                    #expect(console.statements?.take() == 0, "\(route) read the database without a session")
                }
            }
            #expect(try await fixture.books() == before)

            // bob, who reads: every page, and 403 for every action, before its form or any row is read
            let bob = try await fixture.session("bob", LiveConsole.readerSecret)
            for (route, sample) in routes {
                let cookie = route.path == "logout" ? try await fixture.session("bob", LiveConsole.readerSecret) : bob
                let answer = try await ask(route, sample, cookie: cookie.cookie, csrf: cookie.csrf)
                guard case .operatorNeeds(.role(let role)) = route.access else {
                    #expect(answer?.status == sample.admitted, "\(route): \(answer?.status ?? 0)")
                    continue
                }
                #expect(answer?.status == 403, "\(route): \(answer?.status ?? 0)")
                #expect(answer?.body.contains("it needs the \(role) role") == true, "\(route)")
                #expect(answer?.body.contains("Nothing was read or changed") == true, "\(route)")
                #expect(console.statements?.take() == 0, "\(route) read the database for bob")
                // Refused before the CSRF check and the form: no token and a NUL still get the role's 403
                let unread = try await console.send(
                    "POST", sample.path, form: sample.form.merging(["note": "a\u{0}b"]) { $1 }, cookie: bob.cookie,
                    headers: ["Origin": "http://127.0.0.1"])
                #expect(unread?.status == 403 && unread?.body.contains("it needs the \(role) role") == true)
                #expect(console.statements?.take() == 0, "\(route) read the database for bob")
            }
            #expect(try await fixture.books() == before)

            // alice, with the adjust role: every route, and each action done
            let alice = try await fixture.session("alice", LiveConsole.secret)
            for (route, sample) in routes {
                let cookie = route.path == "logout" ? try await fixture.session("alice", LiveConsole.secret) : alice
                let answer = try await ask(route, sample, cookie: cookie.cookie, csrf: cookie.csrf)
                #expect(answer?.status == sample.admitted, "\(route): \(answer?.status ?? 0) \(answer?.body ?? "")")
            }
            let after = try await fixture.books()
            #expect(
                after.letters == [
                    "dl_matrix_replay": .replayed, "dl_matrix_discard": .discarded,
                    "dl_matrix_group_replay": .replayed, "dl_matrix_group_discard": .discarded,
                ])
            // (both seeded webhooks sent again, and the grant's own account.adjusted)
            #expect(after.webhooks.count == 3 && after.webhooks.values.allSatisfy { $0 == .pending })
            #expect(after.balances == ["coins": 105] && after.adjustments == 1)
        }
    }

    @Test func aReaderSeesNoButtonForWhatSheMayNotDoAndAnAdjusterSeesThem() async throws {
        try await ConsoleRoleFixture.run { fixture in
            let pages = [
                "/console", "/console/dead", "/console/dead/dl_matrix_replay", "/console/webhooks",
                "/console/webhooks/\(fixture.webhook)", "/console/accounts/\(ConsoleRoleFixture.player)",
            ]
            let bob = try await fixture.session("bob", LiveConsole.readerSecret)
            let alice = try await fixture.session("alice", LiveConsole.secret)
            for path in pages {
                // bob: no action, and a note that says which role it would take
                let read = try await fixture.console.send("GET", path, cookie: bob.cookie)
                #expect(read?.status == 200, "\(path)")
                #expect(ConsoleRoleFixture.actions(read?.body ?? "") == [], "\(path) offers bob an action")
                #expect(read?.body.contains("id=\"read-only\"") == true, "\(path)")
                #expect(read?.body.contains("<code>adjust</code> role") == true, "\(path)")

                // alice: the actions, each a route of the table she may use, and no note
                let full = try await fixture.console.send("GET", path, cookie: alice.cookie)
                let actions = ConsoleRoleFixture.actions(full?.body ?? "")
                #expect(!actions.isEmpty, "\(path) offers alice nothing")
                #expect(full?.body.contains("id=\"read-only\"") == false, "\(path)")
                for action in actions {
                    let route = OperatorConsole.routes.first { route in
                        route.method == .post && Self.matches(route.routerPath, action)
                    }
                    #expect(route?.access == .operatorNeeds(.role(.adjust)), "\(path): \(action)")
                }
            }
        }
    }

    /// Whether `path` (percent-encoded, as a page writes it) is one of `route`'s.
    static func matches(_ route: RouterPath, _ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count == route.count && zip(route, parts).allSatisfy { element, part in element ~= part }
    }
}
