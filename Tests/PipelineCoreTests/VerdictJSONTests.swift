import Foundation
import PipelineCore
import PipelineTesting
import Testing

/// The verdicts `JSONText` writes are, byte for byte, what their `Encodable` conformances
/// write through `WireCoding.encoder()`, as validators wrote them before: every outcome, with
/// and without each optional member, transactions and notifications, strings that need escaping.
struct VerdictJSONTests {
    @Test func everyShapeIsWrittenAsTheEncoderWritesIt() throws {
        var random = FuzzRandom(seed: 29)
        for round in 0..<3_000 {
            let verdict = random.verdict()
            let reference = String(decoding: try WireCoding.encoder().encode(verdict), as: UTF8.self)
            #expect(String(decoding: verdict.wireJSON, as: UTF8.self) == reference, "round \(round): \(verdict)")
        }
    }

    @Test func aVerdictReadsBackAsItWas() throws {
        var random = FuzzRandom(seed: 7)
        for _ in 0..<200 {
            var verdict = random.verdict()
            // Timestamps keep milliseconds.
            verdict.decidedAt = Date(
                timeIntervalSince1970: (verdict.decidedAt.timeIntervalSince1970 * 1000).rounded() / 1000)
            let read = try WireCoding.decoder().decode(Verdict.self, from: Data(verdict.wireJSON))
            #expect(read.receiptID == verdict.receiptID && read.transactions.count == verdict.transactions.count)
            #expect(read.decidedAt == verdict.decidedAt && read.notification?.rawType == verdict.notification?.rawType)
        }
    }
}

extension FuzzRandom {
    mutating func transaction() -> VerifiedTransaction {
        VerifiedTransaction(
            transactionID: wireText(), originalTransactionID: wireText(), productID: wireText(), quantity: wireInt(),
            purchaseDate: maybe { $0.wireDate() }, expiresDate: maybe { $0.wireDate() },
            cancellationDate: maybe { $0.wireDate() }, appAccountToken: maybe { $0.wireText() },
            productType: maybe { $0.wireText() }, revocationPercentage: maybe { $0.wireInt() },
            confirmation: maybe { $0.wireText() }, storeAccountID: maybe { $0.wireText() },
            refundedQuantity: maybe { $0.wireInt() }, appTransactionID: maybe { $0.wireText() },
            offerPeriod: maybe { $0.wireText() }, billingPlanType: maybe { $0.wireText() },
            commitmentExpiresDate: maybe { $0.wireDate() },
            linkedOriginalTransactionID: maybe { $0.wireText() }, isUpgraded: maybe { $0.wireInt() % 2 == 0 },
            offerType: maybe { $0.wireText() }, offerID: maybe { $0.wireText() },
            ownershipType: maybe { $0.wireText() },
            priceMicros: maybe { Int64($0.wireInt()) }, currency: maybe { $0.wireText() },
            country: maybe { $0.wireText() }, taxMicros: maybe { Int64($0.wireInt()) })
    }

    mutating func verdict() -> Verdict {
        var verdict = Verdict(
            outcome: pick(Verdict.Outcome.allCases), receiptID: wireText(), accountID: wireText(),
            orderID: maybe { $0.wireText() }, productID: maybe { $0.wireText() }, reason: maybe { $0.wireText() },
            attempts: wireInt(), environment: maybe { $0.wireText() },
            transactions: (0..<below(3)).map { _ in transaction() },
            notification: maybe {
                StoreNotification(
                    notificationUUID: $0.wireText(), type: $0.wireText(), subtype: $0.maybe { $0.wireText() },
                    environment: $0.maybe { $0.wireText() }, signedDate: $0.maybe { $0.wireDate() },
                    transaction: $0.maybe { $0.transaction() }, gracePeriodExpiresDate: $0.maybe { $0.wireDate() })
            },
            decidedAt: wireDate())
        // An outcome this build does not know still travels as it came.
        if oneIn(10) { verdict.rawOutcome = wireText() }
        // Never on the wire.
        verdict.traceparent = maybe { $0.wireText() }
        return verdict
    }
}
