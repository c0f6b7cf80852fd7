import AppStore
import ArgumentParser
import Foundation

extension Lab.Bench {
    /// Decoding `verifyReceipt` answers alone, on one core: the validator's way and `JSONDecoder`'s.
    struct AnswerDecodeBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "answers",
            abstract: "verifyReceipt answers per second that one core decodes, from a JSON tape and with JSONDecoder.",
            discussion: """
                Decodes the same answer --count times each way, in turn, and prints the microseconds per
                answer and their ratio. By default an answer written from values with --purchases
                transactions in its receipt and as many in latest_receipt_info; with --file, that answer
                (Apple's JSON, as verifyReceipt sends it). Both ways must decode it alike.
                """)

        @Option(help: "Decodes to time, each way.") var count = 20_000
        @Option(help: "An answer to decode instead of one written from values (JSON).") var file: String?
        @Option(help: "Transactions in the written answer.") var purchases = 1

        func validate() throws {
            guard count > 0, (1...10_000).contains(purchases) else {
                throw ValidationError("--count must be positive, --purchases 1...10000")
            }
        }

        func run() async throws {
            let (body, label) = try subject()
            let byDecoder = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body))
            guard let decoded = VerifyReceiptResponse.decode(body, orWith: JSONDecoder()), decoded == byDecoder else {
                throw ValidationError("the answer does not decode, or decodes differently each way: \(label)")
            }
            let tape = time { _ = VerifyReceiptResponse.decode(body, orWith: JSONDecoder()) }
            let decoder = time { _ = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body)) }
            print(
                "verifyReceipt answers: \(label), \(body.count) bytes\n"
                    + "  tape:        \(String(format: "%8.2f", tape)) µs each\n"
                    + "  JSONDecoder: \(String(format: "%8.2f", decoder)) µs each, "
                    + "\(String(format: "%.1f", decoder / tape)) times the tape's")
        }

        /// Microseconds per call of `body`, over --count calls after one untimed.
        private func time(_ body: () -> Void) -> Double {
            body()
            let start = ContinuousClock.now
            for _ in 0..<count { body() }
            return (ContinuousClock.now - start).seconds * 1e6 / Double(count)
        }

        private func subject() throws -> ([UInt8], String) {
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read \(file)")
                }
                return (Array(data), file)
            }
            let transactions = (0..<purchases).map { index in
                VerifyReceiptResponse.Transaction(
                    transactionID: "\(2_000_000_000_000_000 + index)", originalTransactionID: "2000000000000000",
                    productID: "com.example.coins100", purchaseDate: Date(timeIntervalSince1970: 1_764_000_000),
                    originalPurchaseDate: Date(timeIntervalSince1970: 1_764_000_000), isTrialPeriod: "false")
            }
            let answer = VerifyReceiptResponse(
                status: .valid, environment: "Production",
                receipt: .init(bundleID: "com.example.game", applicationVersion: "42", inApp: transactions),
                latestReceiptInfo: transactions)
            return (Array(try JSONEncoder().encode(answer)), "written from values, \(purchases) purchase(s)")
        }
    }
}
