import ArgumentParser
import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

extension IAP.Dlq {
    /// `iap dlq show ID`: one letter whole, with its receipt and every death of that receipt.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a dead letter: its receipt, every attempt's death and error, its body and headers.")

        @Argument(help: "The dead letter's id (see `iap dlq list`).") var id: String
        @OptionGroup var app: AppOption
        @OptionGroup var output: DlqOutputOptions

        func run() async throws {
            let context = try await DlqContext()
            guard let letter = try await context.letters.deadLetter(id: id) else {
                throw DlqFailure("no dead letter with id \(id) (see `iap dlq list`)")
            }
            let naming = AccountNaming(
                apps: context.settings.appDirectory, scope: try app.scope(in: context.settings.appDirectory))
            // Another app's letter is not there for this app, as the intake's 404 says.
            if let scope = naming.scope, letter.accountID.flatMap(scope.shown) == nil {
                throw DlqFailure("no dead letter with id \(id) in app \(app.app ?? "") (see `iap dlq list --app`)")
            }
            var receipt: ReceiptDetails?
            var notification: NotificationDetails?
            var history = [letter]
            if let receiptID = letter.receiptID {
                receipt = try await ReceiptRepository(context.database).receipt(id: receiptID)
                notification = try await NotificationRepository(context.database).notification(id: receiptID)
                history = try await context.letters.deadLetters(receiptID: receiptID)
            }
            if output.json {
                try DlqOutput.printJSON([
                    "letter": DlqOutput.letterJSON(letter, full: true),
                    "receipt": DlqOutput.orNull(try receipt.map { try DlqOutput.jsonObject($0) }),
                    "notification": DlqOutput.orNull(try notification.map { try DlqOutput.jsonObject($0) }),
                    "history": history.map { DlqOutput.letterJSON($0, full: false) },
                    "attempt_log": DeadLetterText.attemptLog(inHeaders: letter.headers),
                ])
                return
            }
            var rows: [[String]] = [
                ["letter", letter.id], ["status", letter.status.rawValue], ["reason", letter.reason],
                ["attempts", String(letter.attempts)], ["last error", letter.lastError ?? "-"],
                ["source queue", letter.sourceQueue ?? "-"], ["dead at", DlqOutput.time(letter.deadAt)],
            ]
            if let by = letter.resolvedBy {
                rows += [
                    ["resolved by", by], ["resolved because", letter.resolvedReason ?? "-"],
                    ["resolved at", DlqOutput.time(letter.resolvedAt)],
                ]
            }
            print(DlqOutput.table(["DEAD LETTER", ""], rows, maxWidth: 100))
            if let receipt {
                print("")
                print(
                    DlqOutput.table(
                        ["RECEIPT", ""],
                        [
                            ["id", receipt.receiptID], ["account", naming.name(receipt.accountID)],
                            ["kind", receipt.kind.rawValue],
                            ["status", receipt.status.rawValue], ["reason", receipt.reason ?? "-"],
                            ["attempts", String(receipt.attempts)], ["product", receipt.productID ?? "-"],
                            ["order", receipt.orderID ?? "-"], ["received at", DlqOutput.time(receipt.createdAt)],
                            [
                                "transactions",
                                receipt.transactions.isEmpty
                                    ? "-"
                                    : receipt.transactions.map { "\($0.transactionID) \($0.outcome.rawValue)" }.joined(
                                        separator: ", "),
                            ],
                        ], maxWidth: 100))
            } else if let notification {
                print("")
                print(
                    DlqOutput.table(
                        ["APPLE NOTIFICATION", ""],
                        [
                            ["id", notification.notificationID], ["status", notification.status.rawValue],
                            ["reason", notification.reason ?? "-"], ["type", notification.type ?? "-"],
                            ["transaction", notification.transactionID ?? "-"],
                        ], maxWidth: 100))
            } else {
                print(
                    "\n(no receipt or store notification \(letter.receiptID.map { "named \($0) " } ?? "named ")is in the database)"
                )
            }
            print("\nEvery death of this \(letter.receiptID == nil ? "message" : "receipt"):\n")
            print(
                DlqOutput.table(
                    ["LETTER", "DEAD AT", "ATTEMPTS", "REASON", "LAST ERROR", "STATUS", "BY"],
                    history.map {
                        [
                            $0.id, DlqOutput.time($0.deadAt), String($0.attempts), $0.reason, $0.lastError ?? "-",
                            $0.status.rawValue, $0.resolvedBy ?? "-",
                        ]
                    }, maxWidth: 48))
            let attempts = DeadLetterText.attemptLog(inHeaders: letter.headers)
            if !attempts.isEmpty {
                print("\nEvery failed attempt, oldest first:\n")
                for line in attempts { print("  " + line) }
            }
            let deaths = DeathRecord.all(inHeaders: letter.headers)
            if !deaths.isEmpty {
                print("\nIts way through the queues (RabbitMQ's x-death, most recent first):\n")
                print(
                    DlqOutput.table(
                        ["QUEUE", "REASON", "TIMES", "LAST"],
                        deaths.map { [$0.queue, $0.reason, String($0.count), DlqOutput.time($0.time)] }, maxWidth: 60))
            }
            let body = DeadLetterText.body(letter.body)
            print("\nBody (\(body.encoding)):\n\(body.text)")
            print("\nHeaders:\n\(DeadLetterText.prettyJSON(letter.headers))")
        }
    }
}
