import ArgumentParser
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP {
    /// `iap account show|adjust|entitle`: an account's story, and an operator's grants and
    /// revokes on the record.
    struct Account: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an account's story; grant or take back currency, grant an entitlement.",
            subcommands: [Show.self, Adjust.self, Entitle.self])

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "An account's balances, entitlements, timeline and webhooks.",
                discussion:
                    "ID is an account id, or any id that leads to one: a receipt, a notification, an Apple (original) transaction, an order, an appAccountToken."
            )

            @Argument(help: "The account, or an id that leads to it.") var id: String
            @OptionGroup var app: AppOption
            @Flag(help: "Print JSON.") var json = false

            func run() async throws {
                let context = try await DlqContext()
                let naming = AccountNaming(
                    apps: context.settings.appDirectory, scope: try app.scope(in: context.settings.appDirectory))
                let history = AccountHistoryRepository(context.database)
                let exact = naming.stored(id)
                let found = try await history.accounts(matching: id, naming: naming)
                guard !found.isEmpty else {
                    throw DlqFailure(
                        "no account found for '\(id.prefix(64))'" + (app.app.map { " in app \($0)" } ?? ""))
                }
                if found.count > 1, !found.contains(exact) {
                    throw DlqFailure(
                        "'\(id.prefix(64))' leads to \(found.count) accounts: "
                            + "\(found.map(naming.name).joined(separator: ", ")); show one of them")
                }
                let accountID = found.contains(exact) ? exact : found[0]
                guard let story = try await history.story(of: accountID, now: Date()) else {
                    throw DlqFailure("no account \(naming.name(accountID))")
                }
                if json { return try WebhooksOutput.printJSON(story) }
                print(AccountOutput.text(story, name: naming.name))
                // The same player in the studio's other games, for the support desk.
                let others = found.filter { $0 != accountID && AppScope.bare($0) == AppScope.bare(accountID) }
                if !others.isEmpty { print("\nalso in other apps: \(others.map(naming.name).joined(separator: ", "))") }
            }
        }

        /// What `adjust` and `entitle` share: the account, the reason, the operator, the key.
        struct Common: ParsableArguments {
            @Argument(help: "The account's id (<app>/<account> for another app's, without --app).") var id: String
            @Option(
                help: """
                    The account's app (an id of IAP_APPS): its catalog checks the currency or the \
                    entitlement. Without it, a bare id is the default app's.
                    """)
            var app: String?
            @Option(help: "Why (kept on the record, sent in the webhook).") var reason: String?
            @Option(help: "The operator's name; $USER by default.") var by: String?
            @Option(help: "The same key again counts once; a fresh one by default.") var idempotencyKey: String?
            @Flag(help: "Print JSON.") var json = false

            func apply(currency: String?, amount: String?, entitlement: String?, until: String?) async throws {
                let name = try operatorName(by)
                var request: AdjustmentRepository.Request
                do {
                    request = try .parse(
                        accountID: id, currency: currency, amount: amount, entitlement: entitlement, until: until,
                        reason: reason, operatorName: name,
                        idempotencyKey: idempotencyKey ?? UUID().uuidString.lowercased())
                } catch { throw ValidationError(error.description) }
                let context = try await DlqContext()
                let apps = context.settings.appDirectory
                let scope = try AppOption.scope(app, in: apps)
                // With --app, the id as the app's backend knows it: an `<app>/` id would name two apps.
                if scope != nil, id.contains(AppScope.separator) {
                    throw ValidationError("with --app, give the account as app \(app ?? "") knows it, without '/'")
                }
                // Without it, a bare id is the default app's and `<app>/<account>` that app's, as `show` reads them.
                request.accountID = AccountNaming(apps: apps, scope: scope).stored(id)
                // The command's own output is its answer: the catalog's notices stay out of it.
                var logger = context.settings.logger("account")
                logger.logLevel = .error
                let catalogs = try context.settings.appCatalogs(logger: logger)
                let record: AdjustmentRepository.Record
                do {
                    record = try await AdjustmentRepository(context.database).apply(
                        request, catalogs: catalogs, now: Date())
                } catch let refusal as AdjustmentRepository.Refusal {
                    // Named by the account's app where it is not the default's bare id.
                    let named = app ?? AppScope.appID(of: request.accountID)
                    throw DlqFailure("refused, nothing changed: \(refusal)" + (named.map { " (app \($0))" } ?? ""))
                }
                if json { return try WebhooksOutput.printJSON(AccountOutput.Adjusted(record)) }
                print(AccountOutput.text(record))
            }
        }

        struct Adjust: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract:
                    "Grant currency, or take it back with a negative amount (the catalog's negative_balance policy applies).",
                discussion: "Example: iap account adjust player-1 --currency coins --amount 100 --reason \"goodwill\"")

            @OptionGroup var common: Common
            @Option(help: "The currency, as the catalog names it.") var currency: String
            @Option(parsing: .unconditional, help: "Signed whole number: negative takes back (--amount -100).")
            var amount: String

            func run() async throws {
                try await common.apply(currency: currency, amount: amount, entitlement: nil, until: nil)
            }
        }

        struct Entitle: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Grant an entitlement until a date.",
                discussion:
                    "Example: iap account entitle player-1 --entitlement vip --until 2026-12-31 --reason \"outage\"")

            @OptionGroup var common: Common
            @Option(help: "The entitlement, as the catalog names it.") var entitlement: String
            @Option(help: "YYYY-MM-DD (midnight UTC) or an ISO 8601 date and time.") var until: String

            func run() async throws {
                try await common.apply(currency: nil, amount: nil, entitlement: entitlement, until: until)
            }
        }
    }
}

/// How `iap account` prints.
enum AccountOutput {
    static func text(_ story: AccountStory, name: (String) -> String = { $0 }) -> String {
        let account = story.account
        var lines = ["account \(name(account.accountID))"]
        let balances = account.balances.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append("balances: " + (balances.isEmpty ? "none" : balances.joined(separator: ", ")))
        let entitlements = account.entitlements.map {
            // No end: a non-consumable or lifetime grant.
            "\($0.name) " + ($0.expiresAt.map { "until \(DlqOutput.time($0))" } ?? "for good")
        }
        lines.append("entitlements: " + (entitlements.isEmpty ? "none" : entitlements.joined(separator: ", ")))
        for flag in account.flags {
            lines.append("flag: \(flag.reason.rawValue) \(flag.amount) \(flag.currency) (\(flag.transactionID))")
        }
        lines.append("\ntimeline, oldest first:")
        lines.append(
            DlqOutput.table(
                ["WHEN", "WHAT", "", "ID"],
                story.timeline.map { [DlqOutput.time($0.at), $0.kind.rawValue, $0.summary, $0.reference.id] },
                maxWidth: 100))
        lines.append("\nwebhooks, newest first:")
        lines.append(
            story.webhooks.isEmpty
                ? "none"
                : DlqOutput.table(
                    ["WEBHOOK", "TYPE", "STATUS", "ATTEMPTS", "WRITTEN", "LAST ERROR"],
                    story.webhooks.map {
                        [
                            $0.id, $0.type.rawValue, $0.status.rawValue, String($0.attempts),
                            DlqOutput.time($0.createdAt), $0.lastError ?? "-",
                        ]
                    }))
        return lines.joined(separator: "\n")
    }

    static func text(_ record: AdjustmentRepository.Record) -> String {
        let done: String =
            switch record.change {
            case .currency(let currency, let amount):
                "\(amount > 0 ? "granted" : "took back") \(amount.magnitude) \(currency); balance \(record.balance.map(String.init) ?? "?")"
                    + ((record.writtenOff ?? 0) > 0 ? ", \(record.writtenOff ?? 0) written off" : "")
            case .entitlement(let name, let until): "granted \(name) until \(DlqOutput.time(until))"
            }
        return (record.replayed ? "already done (same idempotency key): " : "")
            + "\(record.accountID): \(done) by \(record.operatorName) (adjustment \(record.id))"
    }

    /// The JSON `iap account adjust --json` prints.
    struct Adjusted: Encodable {
        var adjustmentID: String
        var accountID: String
        var currency: String?
        var amount: Int?
        var entitlement: String?
        var expiresAt: Date?
        var balance: Int?
        var writtenOff: Int?
        var reason: String
        var by: String
        var replayed: Bool

        init(_ record: AdjustmentRepository.Record) {
            adjustmentID = record.id
            accountID = record.accountID
            switch record.change {
            case .currency(let currency, let amount): (self.currency, self.amount) = (currency, amount)
            case .entitlement(let name, let until): (entitlement, expiresAt) = (name, until)
            }
            balance = record.balance
            writtenOff = record.writtenOff
            reason = record.reason
            by = record.operatorName
            replayed = record.replayed
        }

        enum CodingKeys: String, CodingKey {
            case adjustmentID = "adjustment_id"
            case accountID = "account_id"
            case currency, amount, entitlement
            case expiresAt = "expires_at"
            case balance
            case writtenOff = "written_off"
            case reason
            case by = "operator"
            case replayed
        }
    }
}
