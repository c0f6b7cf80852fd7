import ArgumentParser
import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP.Dlq {
    /// `iap dlq list`: open dead letters grouped by reason, then the newest letters.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List dead letters waiting for review, grouped by reason (count, first and last seen), then the newest ones."
        )

        @OptionGroup var filter: DlqFilterOptions
        @Option(help: "How many letters to list below the groups (0 for none).") var limit = 20
        @Flag(help: "Include replayed and discarded letters.") var all = false
        @OptionGroup var output: DlqOutputOptions

        func validate() throws {
            _ = try filter.filter()
            guard (0...10_000).contains(limit) else {
                throw ValidationError("--limit: must be 0...10000, got \(limit)")
            }
        }

        func run() async throws {
            let context = try await DlqContext()
            let statuses: Set<DeadLetter.Status> = all ? Set(DeadLetter.Status.allCases) : [.waiting, .replaying]
            let selection = try filter.filter(in: context.settings.appDirectory)
            let naming = AccountNaming(apps: context.settings.appDirectory, scope: selection.app)
            let query = selection.query(now: Date(), statuses: statuses)
            let groups = try await context.letters.deadLetterGroups(query)
            let letters: [DeadLetter] = (limit == 0 ? [] : try await context.letters.deadLetters(query, limit: limit))
                .map { letter in
                    var named = letter
                    named.accountID = letter.accountID.map(naming.name)
                    return named
                }
            if output.json {
                try DlqOutput.printJSON([
                    "groups": groups.map(DlqOutput.groupJSON),
                    "letters": letters.map { DlqOutput.letterJSON($0, full: false) },
                ])
                return
            }
            let total = groups.reduce(0) { $0 + $1.count }
            guard total > 0 else {
                print(filter.isEmpty ? "No dead letters waiting for review." : "No dead letters match.")
                return
            }
            print(
                "\(total) dead letter\(total == 1 ? "" : "s") in \(groups.count) group\(groups.count == 1 ? "" : "s")\n"
            )
            print(
                DlqOutput.table(
                    ["COUNT", "REASON", "FIRST SEEN", "LAST SEEN"],
                    groups.map {
                        [String($0.count), $0.reason, DlqOutput.time($0.firstDeadAt), DlqOutput.time($0.lastDeadAt)]
                    }))
            guard !letters.isEmpty else { return }
            print("\nNewest \(letters.count):\n")
            print(
                DlqOutput.table(
                    ["ID", "RECEIPT", "ACCOUNT", "REASON", "ATTEMPTS", "AGE", "STATUS"],
                    letters.map {
                        [
                            $0.id, $0.receiptID ?? "-", $0.accountID ?? "-", $0.reason, String($0.attempts),
                            DlqOutput.age($0.deadAt), $0.status.rawValue,
                        ]
                    }, maxWidth: 48))
            print(
                "\nShow one: iap dlq show ID   Replay: iap dlq replay ID | --reason R | --all   Discard: iap dlq discard ID --reason WHY"
            )
        }
    }
}
