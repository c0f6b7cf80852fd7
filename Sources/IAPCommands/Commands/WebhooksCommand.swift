import ArgumentParser
import Database
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP {
    /// `iap webhooks list|show|replay`: the outbox as operators review it.
    struct Webhooks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Review the webhooks sent to the backend, and send them again with the same ids.",
            subcommands: [List.self, Show.self, Replay.self])

        static func store() async throws -> WebhookLogRepository {
            WebhookLogRepository(try await DlqContext().database)
        }

        /// The log and how its accounts are named, for `--app` or for every app.
        static func store(_ option: AppOption) async throws -> (WebhookLogRepository, AccountNaming) {
            let context = try await DlqContext()
            let apps = context.settings.appDirectory
            return (
                WebhookLogRepository(context.database), AccountNaming(apps: apps, scope: try option.scope(in: apps))
            )
        }

        static func date(_ text: String?, option: String, now: Date) throws -> Date? {
            guard let text else { return nil }
            guard let date = Age.date(text, now: now) else {
                throw ValidationError(
                    "\(option): '\(text.prefix(64))' is neither an age (30m, 2h, 7d) nor an ISO 8601 date")
            }
            return date
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List webhooks, newest first.")

            @Option(help: "pending, delivered or failed (given up on).") var status: WebhookLogEntry.Status?
            @Option(help: "Only this account's.") var account: String?
            @Option(help: "Written since: an age (2h, 7d) or an ISO 8601 date.") var since: String?
            @Option(help: "Written before: the same forms.") var until: String?
            @Option(help: "At most this many (1-10000).") var limit = 100
            @OptionGroup var app: AppOption
            @Flag(help: "Print JSON.") var json = false

            func run() async throws {
                guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be 1...10000") }
                let now = Date()
                let (store, naming) = try await Webhooks.store(app)
                let filter = WebhookLogRepository.Filter(
                    status: status, accountID: account.map(naming.stored),
                    since: try Webhooks.date(since, option: "--since", now: now),
                    until: try Webhooks.date(until, option: "--until", now: now), limit: limit, app: naming.scope)
                let entries = try await store.list(filter).map { entry in
                    var named = entry
                    named.accountID = naming.name(entry.accountID)
                    return named
                }
                if json { return try WebhooksOutput.printJSON(entries) }
                print(
                    DlqOutput.table(
                        ["WEBHOOK", "TYPE", "ACCOUNT", "STATUS", "ATTEMPTS", "WRITTEN", "LAST ERROR"],
                        entries.map {
                            [
                                $0.id, $0.type.rawValue, $0.accountID, $0.status.rawValue, String($0.attempts),
                                DlqOutput.time($0.createdAt), $0.lastError ?? "-",
                            ]
                        }))
                if entries.isEmpty { print("no webhook matches") }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show one webhook whole, with its body.")

            @Argument(help: "The webhook's id (evt_...).") var id: String
            @OptionGroup var app: AppOption
            @Flag(help: "Print JSON.") var json = false

            func run() async throws {
                let (store, naming) = try await Webhooks.store(app)
                guard var entry = try await store.webhook(id: id) else {
                    throw DlqFailure("no webhook with id \(id) (see `iap webhooks list`)")
                }
                if let scope = naming.scope, scope.shown(entry.accountID) == nil {
                    throw DlqFailure("no webhook with id \(id) in app \(app.app ?? "") (see `iap webhooks list --app`)")
                }
                entry.accountID = naming.name(entry.accountID)
                if json { return try WebhooksOutput.printJSON(entry) }
                print(
                    DlqOutput.table(
                        ["WEBHOOK", ""],
                        [
                            ["id", entry.id], ["type", entry.type.rawValue], ["account", entry.accountID],
                            ["receipt", entry.receiptID ?? "-"], ["notification", entry.notificationID ?? "-"],
                            ["status", entry.status.rawValue], ["attempts", String(entry.attempts)],
                            ["last error", entry.lastError ?? "-"],
                            ["next attempt", DlqOutput.time(entry.nextAttemptAt)],
                            ["written", DlqOutput.time(entry.createdAt)],
                            ["delivered", DlqOutput.time(entry.deliveredAt)],
                        ], maxWidth: 100))
                print("\n" + (entry.body ?? ""))
            }
        }

        struct Replay: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Send webhooks again, with the same ids (receivers dedupe on webhook-id).",
                discussion:
                    "Give webhook ids, or --failed with --since (and --until): every webhook given up on in that window."
            )

            @Argument(help: "Webhook ids.") var ids: [String] = []
            @Flag(help: "Every webhook given up on (status failed) in the window.") var failed = false
            @Option(help: "With --failed: written since (2h, 7d, or an ISO 8601 date).") var since: String?
            @Option(help: "With --failed: written before; now by default.") var until: String?

            func validate() throws {
                guard ids.isEmpty != !failed else { throw ValidationError("give webhook ids, or --failed (not both)") }
                if failed, since == nil { throw ValidationError("--failed needs --since (say 24h or 7d)") }
                if !failed, since != nil || until != nil {
                    throw ValidationError("--since and --until go with --failed")
                }
            }

            func run() async throws {
                let store = try await Webhooks.store()
                let now = Date()
                let replayed: [String]
                if failed {
                    let from = try Webhooks.date(since, option: "--since", now: now) ?? now
                    let to = try Webhooks.date(until, option: "--until", now: now) ?? now
                    guard from < to else { throw ValidationError("--since must be before --until") }
                    replayed = try await store.replayFailed(since: from, until: to, now: now)
                } else {
                    replayed = try await store.replay(ids: ids, now: now)
                    let unknown = ids.filter { !replayed.contains($0) }
                    if !unknown.isEmpty { print("no such webhook: \(unknown.joined(separator: ", "))") }
                }
                print(
                    "replaying \(replayed.count) webhook\(replayed.count == 1 ? "" : "s"); the notifier sends them now")
                if !failed, replayed.count < ids.count { throw ExitCode(1) }
            }
        }
    }
}

extension WebhookLogEntry.Status: ExpressibleByArgument {}

enum WebhooksOutput {
    static func printJSON(_ value: some Encodable) throws {
        let encoder = WireCoding.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
