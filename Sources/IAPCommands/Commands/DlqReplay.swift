import ArgumentParser
import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP.Dlq {
    /// `iap dlq replay ID | --reason R | --all`: put dead letters back on their work queue.
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Replay dead letters: back to the work queue they died in, confirmed by the broker before they leave the archive.",
            discussion: """
                Give one letter's ID, or --reason R (a whole group), or --all; --account, --older-than and
                --newer-than narrow a bulk replay. A replay reopens the receipt, publishes the original
                message with a publisher confirm, then marks the letter replayed; replaying twice is
                harmless (each Apple transaction credits once).
                """)

        @Argument(help: "The dead letter's id.") var id: String?
        @Flag(help: "Replay every letter waiting for review (narrowed by the filters).") var all = false
        @OptionGroup var filter: DlqFilterOptions
        @Option(help: "Who replays (recorded on the letter and the message). Default: $USER.") var by: String?
        @OptionGroup var output: DlqOutputOptions

        func validate() throws {
            _ = try filter.filter()
            _ = try operatorName(by)
            if let id {
                guard !all, filter.isEmpty else {
                    throw ValidationError("give one letter's ID, or --reason/--all with filters, not both")
                }
                guard !id.isEmpty else { throw ValidationError("ID: must not be empty") }
            } else {
                guard all || filter.reason != nil else {
                    throw ValidationError("say what to replay: a letter's ID, --reason R, or --all")
                }
            }
        }

        func run() async throws {
            let context = try await DlqContext()
            let name = try operatorName(by)
            if let id {
                // Refused before connecting when there is nothing to replay.
                guard let found = try await context.letters.deadLetter(id: id) else {
                    throw DlqFailure("no dead letter with id \(id) (see `iap dlq list`); nothing was replayed")
                }
                guard found.status.isOpen else {
                    throw DlqFailure(
                        "dead letter \(id) was already \(found.status.rawValue) by \(found.resolvedBy ?? "someone"); nothing was replayed"
                    )
                }
                let letter = try await context.withBroker { review in
                    try await review.replay(id: id, by: name)
                }
                if output.json {
                    try DlqOutput.printJSON(DlqOutput.letterJSON(letter, full: false))
                } else {
                    print(
                        "replayed \(letter.id)\(letter.receiptID.map { " (receipt \($0))" } ?? "") to the \(letter.sourceQueue ?? "validate") queue"
                    )
                }
                return
            }
            let selection = try filter.filter(in: context.settings.appDirectory)
            let reporter = ProgressReporter(verb: "replayed")
            let summary = try await context.withBroker { review in
                try await review.replay(selection, by: name, progress: reporter.report)
            }
            if output.json {
                try DlqOutput.printJSON(DlqOutput.summaryJSON(summary, verb: "replayed"))
            } else {
                print("replayed \(summary.done), failed \(summary.failed), skipped \(summary.skipped)")
                for failure in summary.failures { print("  failed \(failure.id): \(failure.error)") }
            }
            if summary.failed > 0 { throw ExitCode(1) }
        }
    }
}
