import Foundation
import PipelineCore
import PipelineTesting
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
        var random = FuzzRandom(seed: 29)
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

/// The webhooks' shapes from a seeded generator, so that a failure names a round that comes back.
extension FuzzRandom {
    mutating func carried() -> CarriedTransaction {
        CarriedTransaction(
            transactionID: wireText(), productID: wireText(),
            outcome: pick(TransactionOutcome.allCases),
            currency: maybe { $0.wireText() }, amount: maybe { $0.wireInt() }, entitlement: maybe { $0.wireText() },
            expiresAt: maybe { $0.wireDate() })
    }

    mutating func data() -> WebhookData {
        switch below(4) {
        case 0:
            var balances: [String: Int] = [:]
            for _ in 0..<below(4) { balances[wireText()] = wireInt() }
            let order = maybe {
                OrderEventData(
                    orderID: $0.wireText(), status: $0.wireText(), productID: $0.wireText(),
                    creditedProductID: $0.maybe { $0.wireText() },
                    mismatched: $0.oneIn(2))
            }
            return .credited(
                CreditedData(transactions: (0..<below(3)).map { _ in carried() }, balances: balances, order: order))
        case 1:
            return .ended(
                EndedData(
                    reason: wireText(), attempts: wireInt(),
                    transactions: maybe { r in (0..<r.below(3)).map { _ in r.carried() } }))
        case 2:
            return .transaction(
                TransactionEventData(
                    transactionID: wireText(), originalTransactionID: wireText(), productID: wireText(),
                    currency: maybe { $0.wireText() },
                    amount: maybe { $0.wireInt() }, entitlement: maybe { $0.wireText() },
                    expiresAt: maybe { $0.wireDate() },
                    notificationUUID: maybe { $0.wireText() }, balance: maybe { $0.wireInt() },
                    writtenOff: maybe { $0.wireInt() }))
        default:
            return .adjusted(
                AdjustmentEventData(
                    adjustmentID: wireText(), currency: maybe { $0.wireText() }, amount: maybe { $0.wireInt() },
                    balance: maybe { $0.wireInt() }, writtenOff: maybe { $0.wireInt() },
                    entitlement: maybe { $0.wireText() },
                    expiresAt: maybe { $0.wireDate() }, reason: wireText(), operatorName: wireText()))
        }
    }

    mutating func webhook() -> Webhook {
        Webhook(
            type: pick(WebhookType.allCases), accountID: wireText(),
            receiptID: maybe { $0.wireText() }, notificationID: maybe { $0.wireText() }, data: data())
    }
}
