import Amazon
import Foundation
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// What the intake's Amazon plug-in makes of what SNS posts: a notification signed by SNS's
/// certificate is a hint about its receipt; a forged, stale, another app's or foreign-certificate
/// one is refused; a subscription confirmation is acknowledged, nothing stored.
@Suite struct AmazonNotificationTests {
    @Test(arguments: ["1", "2"]) func aSignedNotificationIsAHintAboutItsReceipt(_ version: String) async throws {
        try await AmazonFixture.run { fixture in
            let bought = fixture.stub.buy(userID: "amzn-1", productID: "coins_100")
            let message = fixture.stub.notification(
                "CONSUMABLE_PURCHASED", receiptID: bought.receiptID, messageID: "sns-1", version: version)
            let accepted = try await fixture.amazon.notification(AmazonFixture.request(message))
            #expect(accepted.messageID == "sns-1" && accepted.keyedBy == .messageID)
            #expect(accepted.proof == .hint(originalTransactionID: "amazon:\(bought.receiptID)"))
            let notice = try #require(AmazonNotice(payload: accepted.evidence.payload))
            #expect(notice.type == "CONSUMABLE_PURCHASED" && notice.userID == "amzn-1")
            #expect(AmazonStore.identity(namedBy: accepted.evidence) == StubAmazon.packageName)
        }
    }

    @Test func forgedStaleAndForeignMessagesAreRefused() async throws {
        try await AmazonFixture.run { fixture in
            let stub = fixture.stub
            let receipt = stub.buy(userID: "amzn-2", productID: "coins_100").receiptID
            func refusal(_ message: SNSMessage) async -> StoreInputError? {
                do {
                    _ = try await fixture.amazon.notification(AmazonFixture.request(message))
                    return nil
                } catch {
                    return error
                }
            }
            let forged = await refusal(stub.notification("CONSUMABLE_PURCHASED", receiptID: receipt, forged: true))
            #expect(forged?.status == 401 && forged?.message == "the SNS signature does not hold")
            let stale = await refusal(
                stub.notification("CONSUMABLE_PURCHASED", receiptID: receipt, sentAt: Date().addingTimeInterval(-7200)))
            #expect(stale?.status == 401 && stale?.message.contains("stale") == true)
            let other = await refusal(
                stub.notification("CONSUMABLE_PURCHASED", receiptID: receipt, package: "com.example.other"))
            #expect(other?.status == 401 && other?.code == "unknown_app")
            var foreign = stub.notification("CONSUMABLE_PURCHASED", receiptID: receipt)
            foreign.signingCertURL = "http://127.0.0.1:1/SimpleNotificationService-x.pem"
            let untrusted = await refusal(stub.sign(foreign))
            #expect(untrusted?.status == 401 && untrusted?.message.contains("not Amazon SNS's") == true)
            var changed = stub.notification("CONSUMABLE_PURCHASED", receiptID: receipt)
            changed.message = changed.message.replacingOccurrences(of: "amzn-2", with: "amzn-thief")
            #expect(await refusal(changed)?.status == 401)
            let garbage = InboundRequest(headers: [:], body: Array("not json".utf8))
            await #expect(throws: StoreInputError.self) { try await fixture.amazon.notification(garbage) }
        }
    }

    @Test func aSubscriptionConfirmationIsAcknowledgedAndNothingElse() async throws {
        try await AmazonFixture.run { fixture in
            let accepted = try await fixture.amazon.notification(
                AmazonFixture.request(fixture.stub.subscriptionConfirmation()))
            #expect(accepted.proof == .acknowledgement)
        }
    }
}
