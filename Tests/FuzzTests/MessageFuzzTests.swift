import Foundation
import GooglePlay
import PipelineCore
import PipelineTesting
import Testing

/// The messages between stages (submission, verdict, Apple notification, transaction) under
/// random values and mutated JSON: every value survives the wire unchanged, and every body
/// read off a queue decodes or fails with a `DecodingError`, never a crash.
@Suite struct MessageFuzzTests {
    /// Encodes `value` as every stage does, then decodes it as the next stage does.
    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try WireCoding.decoder().decode(T.self, from: try WireCoding.encoder().encode(value))
    }

    /// What the wire carries of `value`. Messages are compared by it: a date read back from
    /// its millisecond text is the same moment, not always the same `Double`.
    func wire<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try WireCoding.encoder().encode(value), as: UTF8.self)
    }

    @Test func randomMessages_crossTheWireUnchanged() async throws {
        try await FuzzBudget(defaultIterations: 1_000).run("messages.roundTrip") { random, _ in
            let submission = MessageValues.submission(&random)
            let submissionBack = try wire(roundTrip(submission))
            #expect(submissionBack == (try wire(submission)))
            let verdict = MessageValues.verdict(&random)
            let verdictBack = try wire(roundTrip(verdict))
            #expect(verdictBack == (try wire(verdict)))
            return 2
        }
    }

    /// Decodes `body` as `type`; a failure must be a `DecodingError`. What decodes is written
    /// once more and must then be stable (a first encoding may round sub-millisecond dates).
    func check<T: Codable & Equatable>(_ body: [UInt8], as type: T.Type) throws {
        let decoded: T
        do {
            decoded = try WireCoding.decoder().decode(T.self, from: Data(body))
        } catch {
            #expect(error is DecodingError, "decoding fails only with a DecodingError, got \(error)")
            return
        }
        let once = try wire(decoded)
        let twice = try wire(roundTrip(decoded))
        #expect(twice == once, "what decodes is written back the same")
    }

    @Test func mutatedMessages_decodeOrFailWithADecodingError() async throws {
        var seedRandom = FuzzRandom(seed: FuzzBudget.defaultSeed)
        let encoder = WireCoding.encoder()
        var seeds: [FuzzJSON] = []
        for _ in 0..<8 {
            seeds.append(try FuzzJSON(parsing: try encoder.encode(MessageValues.submission(&seedRandom))))
            seeds.append(try FuzzJSON(parsing: try encoder.encode(MessageValues.verdict(&seedRandom))))
        }
        try await FuzzBudget(defaultIterations: 1_500).run("messages.decode") { random, _ in
            let body =
                random.oneIn(4)
                ? FuzzBytes.input(from: seeds.map(\.bytes), random: &random)
                : FuzzJSON.input(from: seeds, random: &random)
            try check(body, as: Submission.self)
            try check(body, as: Verdict.self)
            try check(body, as: StoreNotification.self)
            try check(body, as: VerifiedTransaction.self)
            return 4
        }
    }
}

/// Random messages as stages make them: any text in the strings, dates to the millisecond
/// (what the wire carries) from year 1 to 9999.
enum MessageValues {
    static func text(_ random: inout FuzzRandom) -> String {
        switch random.below(5) {
        case 0: ""
        case 1: random.pick(["receipt-1", "com.example.coins100", "évènement", "👍🏽", "a\"b\\c\n", "\u{0}"])
        case 2: String(repeating: "x", count: random.below(2_000))
        default: String(decoding: random.bytes(random.below(40)), as: UTF8.self)
        }
    }

    /// A moment to the millisecond (what the wire keeps) between 1970 and 2200: the dates
    /// Apple and our stages stamp. Far-off years are the parsers' targets, not the messages'.
    static func date(_ random: inout FuzzRandom) -> Date {
        let milliseconds = Int64(random.below(7_258_118_400_000))
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func optional<T>(_ random: inout FuzzRandom, _ make: (inout FuzzRandom) -> T) -> T? {
        random.oneIn(3) ? nil : make(&random)
    }

    static func int(_ random: inout FuzzRandom) -> Int {
        random.pick([0, 1, -1, .max, .min, random.below(1_000)])
    }

    static func evidence(_ random: inout FuzzRandom) -> Evidence {
        switch random.below(6) {
        case 0: .receipt(text(&random))
        case 1: .signedTransaction(text(&random))
        case 2: .notification(signedPayload: text(&random))
        case 3:
            .googlePlay(
                GooglePlayPurchase(packageName: text(&random), productID: text(&random), purchaseToken: text(&random)))
        case 4:
            .googleNotice(
                GoogleNotice(
                    messageID: text(&random), packageName: text(&random), eventTime: optional(&random, date),
                    kind: random.pick([.subscription, .oneTimeProduct, .voidedPurchase, .test]),
                    notificationType: optional(&random, int), purchaseToken: optional(&random, text),
                    productID: optional(&random, text), orderID: optional(&random, text),
                    refundType: optional(&random, int)))
        default: .subscriptionCheck(originalTransactionID: text(&random), latestReceipt: optional(&random, text))
        }
    }

    static func submission(_ random: inout FuzzRandom) -> Submission {
        Submission(
            id: text(&random), accountID: text(&random), evidence: evidence(&random),
            orderID: optional(&random, text), productID: optional(&random, text), submittedAt: date(&random))
    }

    static func transaction(_ random: inout FuzzRandom) -> VerifiedTransaction {
        VerifiedTransaction(
            transactionID: text(&random), originalTransactionID: text(&random), productID: text(&random),
            quantity: int(&random), purchaseDate: optional(&random, date), expiresDate: optional(&random, date),
            cancellationDate: optional(&random, date), appAccountToken: optional(&random, text),
            productType: optional(&random, text), revocationPercentage: optional(&random, int))
    }

    static func notification(_ random: inout FuzzRandom) -> StoreNotification {
        StoreNotification(
            notificationUUID: text(&random),
            type: random.pick(
                StoreNotification.Kind.allCases.map(\.rawValue) + ["X", "SUBSCRIPTION_RENEWED", "VOIDED_PURCHASE"]),
            subtype: optional(&random, text), environment: optional(&random, text),
            signedDate: optional(&random, date), transaction: optional(&random, transaction),
            gracePeriodExpiresDate: optional(&random, date))
    }

    static func verdict(_ random: inout FuzzRandom) -> Verdict {
        Verdict(
            outcome: random.pick(Verdict.Outcome.allCases), receiptID: text(&random), accountID: text(&random),
            orderID: optional(&random, text), productID: optional(&random, text), reason: optional(&random, text),
            attempts: int(&random), environment: optional(&random, text),
            transactions: (0..<random.below(4)).map { _ in transaction(&random) },
            notification: optional(&random, notification), decidedAt: date(&random))
    }
}
