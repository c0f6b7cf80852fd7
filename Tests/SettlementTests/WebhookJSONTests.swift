import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// The webhook bodies `JSONText` writes are, byte for byte, what their `Encodable`
/// conformances write through `WireCoding.encoder()`, which is how they were written before
/// and what receivers' signatures were checked against: every event type, with and without
/// each optional member, and strings that need escaping.
struct WebhookJSONTests {
    /// The body as the contract states it in `Codable` terms (what `OutboxEntry` encoded).
    private struct ReferenceBody: Encodable {
        var webhook: Webhook
        var accountID: String

        enum CodingKeys: String, CodingKey {
            case type
            case receiptID = "receipt_id"
            case notificationID = "notification_id"
            case accountID = "account_id"
            case data
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(webhook.type, forKey: .type)
            if webhook.type.isTransactionEvent {
                try container.encode(webhook.receiptID, forKey: .receiptID)
                try container.encode(webhook.notificationID, forKey: .notificationID)
            } else {
                try container.encodeIfPresent(webhook.receiptID, forKey: .receiptID)
            }
            try container.encode(accountID, forKey: .accountID)
            try container.encode(webhook.data, forKey: .data)
        }
    }

    private static func reference(_ webhook: Webhook) throws -> String {
        let bytes = try WireCoding.encoder().encode(ReferenceBody(webhook: webhook, accountID: webhook.accountID))
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func everyShapeIsWrittenAsTheEncoderWritesIt() throws {
        var random = Random(seed: 29)
        for round in 0..<3_000 {
            let webhook = random.webhook()
            let written = webhook.body(accountID: webhook.accountID)
            #expect(written == (try Self.reference(webhook)), "round \(round): \(webhook)")
        }
    }

    @Test func aCreditedBodyReadsAsTheContractSays() throws {
        let webhook = Webhook(
            type: .receiptCredited, accountID: "player-1", receiptID: "rcpt_1",
            data: .credited(
                CreditedData(
                    transactions: [
                        CarriedTransaction(
                            transactionID: "1000", productID: "gems_100", outcome: .credited, currency: "gems",
                            amount: 100)
                    ], balances: ["gems": 100, "coins": 0], order: nil)))
        #expect(
            webhook.body(accountID: "player-1")
                == #"{"account_id":"player-1","data":{"balances":{"coins":0,"gems":100},"transactions":[{"amount":100,"currency":"gems","outcome":"credited","product_id":"gems_100","transaction_id":"1000"}]},"receipt_id":"rcpt_1","type":"receipt.credited"}"#
        )
    }
}

/// A small seeded generator, so that a failure names a round that comes back.
private struct Random {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func coin() -> Bool { below(2) == 0 }
    mutating func maybe<T>(_ make: (inout Random) -> T) -> T? { coin() ? make(&self) : nil }

    /// Plain ids most of the time, and now and then what needs escaping or is not ASCII.
    mutating func text() -> String {
        let pieces = [
            "abc", "gems_100", "2000000123456789", "a/b", "quote\"d", "back\\slash", "line\nbreak", "tab\t",
            "\u{0}\u{1}\u{1f}\u{7f}", "\u{8}\u{c}\r", "é", "日本", "😀", "\u{2028}", " ", "",
        ]
        return (0..<(1 + below(3))).map { _ in pieces[below(pieces.count)] }.joined()
    }

    mutating func int() -> Int {
        [0, 1, -1, Int.max, Int.min, 100, -250, Int(truncatingIfNeeded: next())][below(8)]
    }

    mutating func date() -> Date {
        Date(timeIntervalSince1970: Double(below(4_000_000_000_000)) / 1000 - 1_000_000_000)
    }

    mutating func carried() -> CarriedTransaction {
        CarriedTransaction(
            transactionID: text(), productID: text(),
            outcome: TransactionOutcome.allCases[below(TransactionOutcome.allCases.count)],
            currency: maybe { $0.text() }, amount: maybe { $0.int() }, entitlement: maybe { $0.text() },
            expiresAt: maybe { $0.date() })
    }

    mutating func data() -> WebhookData {
        switch below(4) {
        case 0:
            var balances: [String: Int] = [:]
            for _ in 0..<below(4) { balances[text()] = int() }
            let order = maybe {
                OrderEventData(
                    orderID: $0.text(), status: $0.text(), productID: $0.text(),
                    creditedProductID: $0.maybe { $0.text() },
                    mismatched: $0.coin())
            }
            return .credited(
                CreditedData(transactions: (0..<below(3)).map { _ in carried() }, balances: balances, order: order))
        case 1:
            return .ended(
                EndedData(
                    reason: text(), attempts: int(),
                    transactions: maybe { r in (0..<r.below(3)).map { _ in r.carried() } }))
        case 2:
            return .transaction(
                TransactionEventData(
                    transactionID: text(), originalTransactionID: text(), productID: text(),
                    currency: maybe { $0.text() },
                    amount: maybe { $0.int() }, entitlement: maybe { $0.text() }, expiresAt: maybe { $0.date() },
                    notificationUUID: maybe { $0.text() }, balance: maybe { $0.int() }, writtenOff: maybe { $0.int() }))
        default:
            return .adjusted(
                AdjustmentEventData(
                    adjustmentID: text(), currency: maybe { $0.text() }, amount: maybe { $0.int() },
                    balance: maybe { $0.int() }, writtenOff: maybe { $0.int() }, entitlement: maybe { $0.text() },
                    expiresAt: maybe { $0.date() }, reason: text(), operatorName: text()))
        }
    }

    mutating func webhook() -> Webhook {
        Webhook(
            type: WebhookType.allCases[below(WebhookType.allCases.count)], accountID: text(),
            receiptID: maybe { $0.text() }, notificationID: maybe { $0.text() }, data: data())
    }
}
