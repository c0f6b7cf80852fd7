import ArgumentParser
import Database
import DeadLetters
import Foundation
import Repositories
import SettlementWriter

extension IAP.Dlq {
    /// `iap dlq discard ID --reason WHY`: give up on a dead letter, on the record.
    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Discard a dead letter with a recorded reason; its receipt stays dead and says who discarded it and why."
        )

        @Argument(help: "The dead letter's id.") var id: String
        @Option(help: "Why it is discarded (required; shown in the receipt's status).") var reason: String
        @Option(help: "Who discards it. Default: $USER.") var by: String?
        @OptionGroup var output: DlqOutputOptions

        func validate() throws {
            guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("--reason: say why the letter is discarded")
            }
            guard reason.count <= 500 else { throw ValidationError("--reason: at most 500 characters") }
            _ = try operatorName(by)
        }

        func run() async throws {
            let context = try await DlqContext()
            let letter: DeadLetter
            do {
                letter = try await context.offlineReview().discard(id: id, by: try operatorName(by), reason: reason)
            } catch let error as DeadLetterError {
                throw DlqFailure(error.message + "; nothing was discarded")
            }
            if output.json {
                try DlqOutput.printJSON(DlqOutput.letterJSON(letter, full: false))
            } else {
                print(
                    "discarded \(letter.id)\(letter.receiptID.map { " (receipt \($0))" } ?? ""): discarded by \(letter.resolvedBy ?? ""): \(letter.resolvedReason ?? "")"
                )
            }
        }
    }
}
