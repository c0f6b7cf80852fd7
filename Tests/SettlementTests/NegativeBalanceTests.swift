import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// A refund of coins the player already spent: the catalog's `negative_balance` policy
/// decides whether the balance goes below zero (`allow`, flagged) or stops at zero with
/// the rest written off (`clamp`, flagged); either way the refund is in the ledger whole.
@Suite struct NegativeBalanceTests {
    typealias F = EngineFixture
    static let cause = F.notice("n1", uuid: "U1")

    static func engine(_ policy: NegativeBalancePolicy) -> SettlementEngine {
        var catalog = F.catalog
        catalog.rawNegativeBalance = policy.rawValue
        return SettlementEngine(catalog: catalog)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var policy: NegativeBalancePolicy
        /// a1's coins before the refund.
        var balance: Int
        /// The refunded share, in milli-percent (nil: all of the 100 credited).
        var share: Int? = nil
        var writeOff: Int
        var after: Int
        var flag: (AccountFlagReason, Int)?
        var testDescription: String {
            "\(policy): \(share.map { "\($0 / 1000) % of " } ?? "")100 refunded from \(balance) leaves \(after)"
        }
    }

    static let cases: [Case] = [
        Case(policy: .allow, balance: 100, writeOff: 0, after: 0, flag: nil),
        Case(policy: .allow, balance: 250, writeOff: 0, after: 150, flag: nil),
        Case(policy: .allow, balance: 30, writeOff: 0, after: -70, flag: (.negativeBalance, -70)),
        Case(policy: .allow, balance: 0, writeOff: 0, after: -100, flag: (.negativeBalance, -100)),
        Case(policy: .allow, balance: -20, writeOff: 0, after: -120, flag: (.negativeBalance, -120)),
        Case(policy: .clamp, balance: 100, writeOff: 0, after: 0, flag: nil),
        Case(policy: .clamp, balance: 250, writeOff: 0, after: 150, flag: nil),
        Case(policy: .clamp, balance: 30, writeOff: 70, after: 0, flag: (.refundShortfall, 70)),
        Case(policy: .clamp, balance: 0, writeOff: 100, after: 0, flag: (.refundShortfall, 100)),
        Case(policy: .clamp, balance: -20, writeOff: 100, after: -20, flag: (.refundShortfall, 100)),
        Case(policy: .clamp, balance: 30, share: 50_000, writeOff: 20, after: 0, flag: (.refundShortfall, 20)),
        Case(policy: .allow, balance: 30, share: 50_000, writeOff: 0, after: -20, flag: (.negativeBalance, -20)),
    ]

    @Test(arguments: cases)
    func aRefundOfSpentCoins_followsThePolicy_andIsInTheLedgerWhole(_ row: Case) throws {
        // Given 100 coins credited to a1 by t1, of which a1 holds `balance` now
        let state = SettlementState(known: F.known("t1"), accounts: ["a1": F.payer(["coins": row.balance])])

        // When Apple refunds t1 (or its share)
        let transaction = F.purchase("t1", cancelled: F.t0, share: row.share)
        let decision = try F.decide(
            .takenBack(transaction, kind: .refund, cause: Self.cause), state, engine: Self.engine(row.policy))

        // Then the whole debit is posted, any write-off beside it, the account flagged as
        // the policy says, and the webhook tells the balance after it and what was forgiven
        let debit = SettlementEngine.share(of: 100, milliPercent: row.share)
        var expected = [F.posting("a1", "coins", -debit, .refund, cause: Self.cause, transaction: "t1")]
        if row.writeOff > 0 {
            expected.append(F.posting("a1", "coins", row.writeOff, .writeOff, cause: Self.cause, transaction: "t1"))
        }
        if let (reason, amount) = row.flag {
            expected.append(
                .flagAccount(
                    AccountFlag(
                        accountID: "a1", reason: reason, currency: "coins", amount: amount, transactionID: "t1",
                        notificationID: "n1")))
        }
        expected += [
            .updateTransaction(transactionID: "t1", state: .refunded, cancellationDate: F.t0),
            F.transactionWebhook(
                .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "t1", currency: "coins",
                amount: -debit, uuid: "U1", balance: row.after, writtenOff: row.writeOff),
        ]
        #expect(decision.effects == expected)
        #expect(row.balance - debit + row.writeOff == row.after)
    }

    @Test(arguments: [(100, 70, 30), (100, 100, 0), (50, 20, 30)])
    func aReversalAfterAWriteOff_givesBackOnlyWhatWasTaken(_ debit: Int, _ writtenOff: Int, _ back: Int) throws {
        // Given t1's 100 coins refunded, `writtenOff` of the debit forgiven (policy clamp)
        var known = F.known(state: .refunded, debit: Money(currency: "coins", amount: -debit))
        known.writtenOff = Money(currency: "coins", amount: writtenOff)

        // When Apple reverses the refund
        let decision = try F.decide(
            .refundReversed(F.purchase("t1"), cause: Self.cause), SettlementState(known: known),
            engine: Self.engine(.clamp))

        // Then a1 gets back what the refund took, not what it forgave (nothing, if it took nothing)
        #expect(
            decision.effects
                == (back == 0
                    ? [] : [F.posting("a1", "coins", back, .refundReversal, cause: Self.cause, transaction: "t1")])
                + [
                    .updateTransaction(transactionID: "t1", state: .credited, cancellationDate: nil),
                    F.transactionWebhook(
                        .purchaseRefundReversed, to: "a1", receipt: "r0", notification: "n1", transaction: "t1",
                        currency: "coins", amount: back, uuid: "U1"),
                ])
    }

    @Test(arguments: NegativeBalancePolicy.allCases)
    func bookingADebit_keepsTheBalanceEqualToItsEntries(_ policy: NegativeBalancePolicy) {
        // For balances and debits around zero and at the extremes of what a ledger holds
        let balances = [Int.min / 2, -1_000, -1, 0, 1, 99, 100, 101, 1_000, Int.max / 2]
        let debits = [1, 2, 99, 100, 101, 1_000_000, Int.max / 2]
        for balance in balances {
            for debit in debits {
                let booked = SettlementEngine.book(debit, balance: balance, policy: policy)
                // The balance moves by the debit and the write-off, and only the write-off softens it
                #expect(booked.balance == balance - debit + booked.writeOff)
                #expect((0...debit).contains(booked.writeOff))
                switch policy {
                case .allow:
                    #expect(booked.writeOff == 0)
                    #expect((booked.flag == .negativeBalance) == (booked.balance < 0))
                case .clamp:
                    // Never below zero, nor below where it already was
                    #expect(booked.balance >= min(balance, 0))
                    #expect(booked.balance <= balance)
                    #expect((booked.flag == .refundShortfall) == (booked.writeOff > 0))
                }
            }
        }
    }

    @Test func theCatalogNamesThePolicy_allowWhenOmitted_andRefusesAnUnknownOne() throws {
        let products = #"[{"product_id": "c", "type": "consumable", "grant": {"currency": "coins", "amount": 1}}]"#
        let omitted = try Catalog.decode(Data(#"{"products": \#(products)}"#.utf8))
        let clamp = try Catalog.decode(Data(#"{"negative_balance": "clamp", "products": \#(products)}"#.utf8))
        #expect(omitted.negativeBalance == .allow)
        #expect(clamp.negativeBalance == .clamp)

        #expect {
            try Catalog.decode(Data(#"{"negative_balance": "forgive", "products": \#(products)}"#.utf8))
        } throws: { error in
            "\(error)".contains("negative_balance forgive is not one of allow, clamp")
        }
    }
}
