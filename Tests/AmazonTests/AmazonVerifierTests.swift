import Amazon
import Foundation
import PipelineCore
import StorePlugins
import StubStore
import Testing

/// The verifier's outcomes, each read back from the stub's RVS over HTTP.
@Suite struct AmazonVerifierTests {
    @Test func aConsumableIsOneTransactionUnderItsReceiptID() async throws {
        try await AmazonFixture.run { fixture in
            let bought = fixture.stub.buy(userID: "amzn-1", productID: "coins_100", quantity: 3)
            let outcome = try await fixture.verify(
                try AmazonFixture.purchase(user: "amzn-1", receipt: bought.receiptID))
            let expected = VerifiedTransaction(
                transactionID: "amazon:\(bought.receiptID)", originalTransactionID: "amazon:\(bought.receiptID)",
                productID: "coins_100", quantity: 3, purchaseDate: bought.purchaseDate, productType: "Consumable")
            #expect(outcome == .valid(environment: "Production", transactions: [expected]))
            #expect(fixture.stub.calls == 1)
        }
    }

    @Test func eachPaidPeriodOfASubscriptionIsItsOwnTransaction() async throws {
        try await AmazonFixture.run { fixture in
            let first = Date(timeIntervalSince1970: 1_900_000_000)
            let bought = fixture.stub.buy(userID: "amzn-2", productID: "vip", type: .subscription, renewalDate: first)
            let evidence = try AmazonFixture.purchase(user: "amzn-2", receipt: bought.receiptID)
            guard case .valid(_, let before) = try await fixture.verify(evidence) else {
                Issue.record("not valid")
                return
            }
            fixture.stub.renew(bought.receiptID, until: first.addingTimeInterval(30 * 86_400))
            guard case .valid(_, let after) = try await fixture.verify(evidence) else {
                Issue.record("not valid")
                return
            }
            #expect(before.first?.transactionID == "amazon:\(bought.receiptID)@1900000000000")
            #expect(before.first?.expiresDate == first && before.first?.productType == "Auto-Renewable Subscription")
            #expect(after.first?.transactionID == "amazon:\(bought.receiptID)@1902592000000")
            #expect(after.first?.originalTransactionID == before.first?.originalTransactionID)
        }
    }

    @Test func rvsDocumentedStatusesAreFinalOrRetried() async throws {
        try await AmazonFixture.run { fixture in
            let bought = fixture.stub.buy(userID: "amzn-3", productID: "coins_100")
            func outcome(_ user: String, _ receipt: String) async throws -> VerificationOutcome {
                try await fixture.verify(try AmazonFixture.purchase(user: user, receipt: receipt))
            }
            let unknown = try await outcome("amzn-3", "no-such-receipt")
            #expect(unknown == .rejected(reason: "amazon_invalid_receipt"))
            let otherUser = try await outcome("someone-else", bought.receiptID)
            #expect(otherUser == .rejected(reason: "amazon_invalid_user"))
            fixture.stub.invalidate(bought.receiptID)
            let gone = try await outcome("amzn-3", bought.receiptID)
            #expect(gone == .rejected(reason: "amazon_receipt_no_longer_valid"))
            fixture.stub.configuration.withLock {
                $0.failFirst = fixture.stub.calls + 1
                $0.rateLimitFirst = 1
            }
            let failing = try await outcome("amzn-3", bought.receiptID)
            #expect(failing.isTransient(reason: "amazon_unavailable"))
            let throttled = try await outcome("amzn-3", bought.receiptID)
            #expect(throttled.isTransient(reason: "amazon_rate_limited"))
        }
    }

    @Test func anotherSharedSecretIsAnOperatorsFixRetried() async throws {
        try await AmazonFixture.run { fixture in
            let bought = fixture.stub.buy(userID: "amzn-4", productID: "coins_100")
            var settings = fixture.settings
            settings.sharedSecret = "someone-elses-secret"
            let verifier = try AmazonStore(settings: settings).verifier(
                StoreContext(
                    httpClient: fixture.http, budgets: LocalCallBudgetKeeper(), catalog: Catalog(products: []),
                    logger: .init(label: "amazon-tests")))
            let outcome = await verifier.verify(
                Submission(
                    id: "r-4", accountID: "p",
                    evidence: .store(try AmazonFixture.purchase(user: "amzn-4", receipt: bought.receiptID)),
                    submittedAt: Date()))
            #expect(outcome.isTransient(reason: "amazon_invalid_shared_secret"))
        }
    }

    @Test func aNoticeIsWhatRVSAnswersAndACancellationRVSDoesNotShowIsContradicted() async throws {
        try await AmazonFixture.run { fixture in
            let bought = fixture.stub.buy(userID: "amzn-5", productID: "coins_100")
            func notice(_ type: String) -> StoreEvidence {
                StoreEvidence(
                    store: "amazon", kind: "notification",
                    payload: AmazonNotice(
                        packageName: StubAmazon.packageName, type: type, userID: "amzn-5", receiptID: bought.receiptID,
                        messageID: "m-\(type)"
                    ).payload)
            }
            guard case .notification(let purchased) = try await fixture.verify(notice("CONSUMABLE_PURCHASED")) else {
                Issue.record("not a notification")
                return
            }
            #expect(purchased.type == .subscribed && purchased.subtype == "CONSUMABLE_PURCHASED")
            #expect(purchased.transaction?.transactionID == "amazon:\(bought.receiptID)")

            // Told of a refund RVS does not show: nothing moves
            let unshown = try await fixture.verify(notice("CONSUMABLE_CANCELLED"))
            #expect(unshown == .rejected(reason: "amazon_notice_contradicted"))

            // Once Amazon cancelled it, the refund is RVS's word, with RVS's date
            let cancelled = Date(timeIntervalSince1970: 1_800_000_000)
            fixture.stub.cancel(bought.receiptID, at: cancelled)
            guard case .notification(let refund) = try await fixture.verify(notice("CONSUMABLE_CANCELLED")) else {
                Issue.record("not a notification")
                return
            }
            #expect(refund.type == .refund && refund.transaction?.cancellationDate == cancelled)
            let late = try await fixture.verify(notice("CONSUMABLE_PURCHASED"))
            #expect(late == .rejected(reason: "amazon_notice_contradicted"), "a purchase RVS shows cancelled")
        }
    }
}

extension VerificationOutcome {
    func isTransient(reason expected: String) -> Bool {
        if case .transient(let reason, _) = self { return reason == expected }
        return false
    }
}
