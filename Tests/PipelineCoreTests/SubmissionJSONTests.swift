import Foundation
import PipelineCore
import PipelineTesting
import Testing

/// The submissions `JSONText` writes are, byte for byte, what their `Encodable` conformance
/// writes through `WireCoding.encoder()`, as the relay wrote them before: Apple's evidence of
/// every kind, Google Play's purchases and notices, plug-in stores' evidence, each optional
/// member present and absent, strings that need escaping.
struct SubmissionJSONTests {
    @Test func everyEvidenceIsWrittenAsTheEncoderWritesIt() throws {
        var random = FuzzRandom(seed: 29)
        for round in 0..<3_000 {
            let submission = random.submission()
            let reference = String(decoding: try WireCoding.encoder().encode(submission), as: UTF8.self)
            #expect(String(decoding: submission.wireJSON, as: UTF8.self) == reference, "round \(round): \(submission)")
        }
    }

    @Test func aSubmissionReadsBackAsItWas() throws {
        var random = FuzzRandom(seed: 7)
        for _ in 0..<300 {
            let submission = random.submission()
            let read = try WireCoding.decoder().decode(Submission.self, from: Data(submission.wireJSON))
            #expect(read.id == submission.id && read.evidence.kind == submission.evidence.kind)
            #expect(read.app == submission.app)
            #expect(read.evidence.storeEvidence.payload == submission.evidence.storeEvidence.payload)
        }
    }
}

extension FuzzRandom {
    mutating func evidence() -> StoreEvidence {
        switch below(5) {
        case 0: return .apple(pick(StoreEvidence.AppleKind.allCases.filter { $0 != .subscriptionCheck }), wireText())
        case 1: return .appleCheck(original: wireText(), latestReceipt: maybe { $0.wireText() })
        case 2:
            return StoreEvidence(
                store: "google", kind: "purchase",
                payload: GooglePlayPurchase(packageName: wireText(), productID: wireText(), purchaseToken: wireText())
                    .canonicalJSON)
        case 3:
            let kinds: [GoogleNotice.Kind] = [
                .subscription, .oneTimeProduct, .voidedPurchase, .pendingRefundReview, .test,
            ]
            return StoreEvidence(
                store: "google", kind: StoreEvidence.notificationKind,
                payload: GoogleNotice(
                    messageID: wireText(), packageName: wireText(), eventTime: maybe { $0.wireDate() },
                    kind: pick(kinds), notificationType: maybe { $0.wireInt() },
                    purchaseToken: maybe { $0.wireText() }, productID: maybe { $0.wireText() },
                    orderID: maybe { $0.wireText() }, refundType: maybe { $0.wireInt() },
                    pendingRefundToken: maybe { $0.wireText() }
                ).canonicalJSON)
        default:
            // A plug-in store's, or Google's with a payload that is not its JSON.
            return StoreEvidence(store: pick(["huawei", "stripe", "google"]), kind: wireText(), payload: wireText())
        }
    }

    mutating func submission() -> Submission {
        var submission = Submission(
            id: wireText(), accountID: wireText(), evidence: .store(evidence()), orderID: maybe { $0.wireText() },
            productID: maybe { $0.wireText() }, submittedAt: wireDate())
        submission.app = maybe { $0.wireText() }
        return submission
    }
}
