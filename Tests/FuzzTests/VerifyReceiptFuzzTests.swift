import AppStore
import Foundation
import HTTPClient
import PipelineCore
import PipelineTesting
import Testing

@testable import StubStore

/// The `verifyReceipt` answer decoder and its classification, under random and mutated
/// answers: never a crash, a body that does not decode is a transient failure, a valid
/// verdict is only ever for this app, and what decodes re-encodes to itself.
@Suite struct VerifyReceiptFuzzTests {
    static let bundleID = "com.example.game"

    /// Answers as the stub store writes them (Apple's shape), and a few of Apple's statuses.
    static func seeds() async throws -> [FuzzJSON] {
        let stub = StubAppStore(configuration: StubStoreConfiguration(bundleID: bundleID, seed: 7))
        let day: TimeInterval = 86_400
        let receipts = [
            StubReceipt(
                bundleID: bundleID,
                transactions: [
                    .init(transactionID: "1000000000000001", productID: "com.example.coins100", quantity: 3),
                    .init(
                        transactionID: "1000000000000002", productID: "com.example.sword",
                        cancellationDate: Date(timeIntervalSince1970: 1_700_100_000), cancellationReason: "0"),
                ]),
            StubReceipt(
                bundleID: bundleID, environment: .sandbox,
                transactions: [
                    .init(
                        transactionID: "1000000000000010", originalTransactionID: "1000000000000009",
                        productID: "com.example.vip.monthly",
                        expiresDate: Date(timeIntervalSince1970: 1_700_000_000 + 30 * day),
                        webOrderLineItemID: "1000000000000099", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138")
                ]),
        ]
        var answers: [FuzzJSON] = []
        for receipt in receipts {
            let body = try JSONSerialization.data(withJSONObject: ["receipt-data": stub.issue(receipt)])
            let environment: StubReceipt.Environment = receipt.environment ?? .production
            let answer = await stub.verify(body: body, at: environment)
            answers.append(try FuzzJSON(parsing: try WireCoding.encoder().encode(answer)))
        }
        for literal in [
            #"{"status": 21007, "environment": "Production"}"#, #"{"status": 21199, "is-retryable": true}"#,
            #"{"status": "0", "receipt": {"bundle_id": "com.example.game", "in_app": []}}"#,
        ] {
            answers.append(try FuzzJSON(parsing: Data(literal.utf8)))
        }
        return answers
    }

    @Test func randomAndMutatedAnswers_classifyWithoutCrashing() async throws {
        let seeds = try await Self.seeds()
        try #require(seeds.count == 5)
        try await FuzzBudget(defaultIterations: 2_000).run("verifyReceipt.answer") { random, _ in
            // Given an answer mutated in its JSON tree, or byte by byte, or noise
            let body =
                random.oneIn(3)
                ? FuzzBytes.input(from: seeds.map(\.bytes), random: &random)
                : FuzzJSON.input(from: seeds, random: &random)
            let endpoint: VerifyReceiptEnvironment = random.oneIn(2) ? .production : .sandbox

            // When it is decoded and classified as the validator does
            let decoded: VerifyReceiptResponse?
            do {
                decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body))
            } catch {
                #expect(error is DecodingError, "decoding fails only with a DecodingError, got \(error)")
                decoded = nil
            }
            let step = VerifyReceiptExchange.classify(
                HTTPResponse(status: 200, body: body), from: endpoint, bundleID: Self.bundleID)

            // Then what does not decode waits for a retry; a valid verdict is this app's
            guard let decoded else {
                #expect(step == .outcome(.transient(reason: "invalid_response_body")))
                return 1
            }
            if case .outcome(.valid(_, let transactions)) = step {
                #expect(decoded.status == .valid)
                #expect(decoded.receipt?.bundleID == Self.bundleID)
                #expect(transactions.allSatisfy { !$0.transactionID.isEmpty && !$0.productID.isEmpty })
                #expect(Set(transactions.map(\.transactionID)).count == transactions.count, "each transaction once")
            }
            // And what decoded is written back in Apple's shape and reads the same
            let again = try JSONDecoder().decode(
                VerifyReceiptResponse.self, from: try JSONEncoder().encode(decoded))
            #expect(again == decoded)
            return 1
        }
    }
}
