import Broker
import Database
import Foundation
import PipelineCore
import PipelineTesting
import Repositories
import SettlementWriter

@testable import Console
@testable import EndToEndSupport

/// A live console (``LiveConsole``: a real intake on a socket over a fresh SQLite file, alice
/// with the `adjust` role, bob who reads) with a running broker connection, and rows for
/// every action of the table to act on: two accounts credited 100 coins each, each one's
/// `receipt.credited` webhook given up on, and four open dead letters in three groups.
struct ConsoleRoleFixture {
    static let player = "matrix-player"
    static let other = "matrix-other"
    static let letters = [
        (id: "dl_matrix_replay", reason: "matrix one"), (id: "dl_matrix_discard", reason: "matrix one"),
        (id: "dl_matrix_group_replay", reason: "matrix group replay"),
        (id: "dl_matrix_group_discard", reason: "matrix group discard"),
    ]

    let console: LiveConsole
    /// matrix-player's webhook.
    let webhook: String

    /// Runs `body` with the console served and its rows seeded.
    static func run(_ body: @Sendable (ConsoleRoleFixture) async throws -> Void) async throws {
        let broker = BrokerFixture(label: "console-roles")
        let topology = broker.pipelineTopology()
        try await broker.withConnection(topology: topology.topology) { connection in
            try await LiveConsole.run(
                { $0.catalogs = AppCatalogs(PipelineHarness.catalog) }, broker: (connection, topology)
            ) { console in
                let webhook = try await seed(console.database, topology)
                try await body(ConsoleRoleFixture(console: console, webhook: webhook))
            }
        }
    }

    /// Seeds the rows; returns matrix-player's webhook id.
    static func seed(_ database: any SQLDatabase, _ topology: PipelineTopology) async throws -> String {
        let now = Date()
        let receipts = [player, other].map { NewReceipt.fixture(accountID: $0) }
        _ = try await IntakeRepository(database).accept(receipts, now: now)
        _ = try await SettlementRepository(database).apply(
            receipts.enumerated().map { .fixture($1, [("matrix-t\($0)", "com.example.coins100")], at: now) },
            catalog: PipelineHarness.catalog, now: now)
        let outbox = OutboxRepository(database)
        let due = try await outbox.claimDueWebhooks(now: now, limit: 10, leaseUntil: now.addingTimeInterval(60))
        _ = try await outbox.recordDeliveries(
            due.map { DeliveryRecord(id: $0.id, outcome: .failed(error: "receiver down", nextAttemptAt: nil), at: now) }
        )
        let letters = Self.letters.map { letter in
            DeadLetter(
                id: letter.id, receiptID: nil, accountID: player, reason: letter.reason, attempts: 1, lastError: nil,
                sourceQueue: topology.validateQueue, body: Data("{}".utf8), headers: "{}", deadAt: now, createdAt: now)
        }
        _ = try await DeadLetterRepository(database).archive(letters, catalog: PipelineHarness.catalog, now: now)
        guard let webhook = due.first(where: { $0.accountID == player })?.id else {
            throw HarnessFailure("no webhook was written for \(player)")
        }
        return webhook
    }

    /// What the console's actions could change, read straight from the database.
    struct Books: Equatable {
        var letters: [String: DeadLetter.Status] = [:]
        var webhooks: [String: WebhookLogEntry.Status] = [:]
        var balances: [String: Int] = [:]
        var adjustments = 0
    }

    func books() async throws -> Books {
        let database = console.database
        var books = Books()
        for letter in Self.letters {
            books.letters[letter.id] = try await DeadLetterRepository(database).deadLetter(id: letter.id)?.status
        }
        for entry in try await WebhookLogRepository(database).list(.init()) { books.webhooks[entry.id] = entry.status }
        books.balances = try await LedgerRepository(database).account(id: Self.player)?.balances ?? [:]
        books.adjustments = try await AdjustmentRepository(database).adjustments(of: Self.player).count
        return books
    }

    /// A fresh session of `name`: its cookie and its pages' CSRF token.
    func session(_ name: String, _ secret: String) async throws -> (cookie: String, csrf: String) {
        let login = try await console.logIn(name: name, secret: secret)
        guard let cookie = LiveConsole.cookie(login), login?.status == 303 else {
            throw HarnessFailure("\(name) could not log in: \(login?.status ?? 0)")
        }
        guard let csrf = LiveConsole.csrf(try await console.send("GET", "/console/receipts", cookie: cookie)) else {
            throw HarnessFailure("no CSRF token on \(name)'s page")
        }
        return (cookie, csrf)
    }

    /// The actions a page offers: every post form's address but the logout's.
    static func actions(_ html: String) -> [String] {
        html.components(separatedBy: "<form method=\"post\" action=\"").dropFirst()
            .map { String($0.prefix { $0 != "\"" }) }.filter { $0 != "/console/logout" }
    }
}
