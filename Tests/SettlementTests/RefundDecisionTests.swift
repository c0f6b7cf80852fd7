import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Refunds and revocations take a credit back once (the refunded share of it), and a
/// reversal gives back exactly what was taken.
@Suite struct RefundDecisionTests {
    typealias F = EngineFixture
    static let cause = F.notice("n1", uuid: "U1")

    // MARK: Taken back before any credit

    static let takeBackDates: [F.Named<(cancelled: Date?, end: Date)>] = [
        F.Named("cancelled half a day in", (F.at(days: 0.5), F.at(days: 0.5))),
        F.Named("cancelled in the future: now", (F.at(days: 3), F.now)),
    ]

    @Test(arguments: [TakeBackKind.refund, .revoke], takeBackDates)
    func aTransactionNeverSeen_isRecordedTakenBack_soThatItNeverCredits(
        _ kind: TakeBackKind, _ row: F.Named<(cancelled: Date?, end: Date)>
    ) throws {
        let dates = row.value
        // Given a transaction no receipt brought yet
        let transaction = F.purchase("t1", cancelled: dates.cancelled)

        // When Apple says it is refunded or revoked
        let decision = try F.decide(.takenBack(transaction, kind: kind, cause: Self.cause))

        // Then it is recorded so, for no account, cancelled no later than now
        let state: TransactionState = kind == .refund ? .refunded : .revoked
        #expect(
            decision.effects == [
                .recordTransaction(F.record(transaction, cause: Self.cause, state: state, cancelled: dates.end))
            ])
        #expect(decision.reason == "refunded_before_credit")
        #expect(decision.accountID == nil)
        #expect(decision.outcome == nil)
    }

    @Test(arguments: [TakeBackKind.refund, .revoke])
    func aTakeBackWithoutTheStoresCancellation_takesNothing(_ kind: TakeBackKind) throws {
        // Given vip and 100 coins credited to a1, and a transaction never seen
        let credited = SettlementState(
            known: F.knownVIP(), bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])

        // When a notice says it is refunded, but neither the store's signed data nor what was
        // read back from it names a cancellation
        let known = try F.decide(
            .takenBack(F.purchase("s1", product: F.vip, expires: F.at(days: 30)), kind: kind, cause: Self.cause),
            credited)
        let unknown = try F.decide(.takenBack(F.purchase("t1"), kind: kind, cause: Self.cause))

        // Then nothing is taken back, recorded or told: a notice is a hint, never a fact
        #expect(known.effects == [] && unknown.effects == [])
        #expect(known.reason == "not_cancelled_by_store" && unknown.reason == "not_cancelled_by_store")
        #expect(known.accountID == "a1" && unknown.accountID == nil)
    }

    @Test(arguments: [TakeBackKind.refund, .revoke])
    func anUnpaidTransaction_isMarkedTakenBack_withoutMoney(_ kind: TakeBackKind) throws {
        // Given a transaction seen but never paid for
        let state = SettlementState(known: F.known("t1", state: .unpaid, account: nil, purchase: nil))

        // When Apple takes it back
        let decision = try F.decide(.takenBack(F.purchase("t1", cancelled: F.t0), kind: kind, cause: Self.cause), state)

        // Then only its state changes
        #expect(
            decision.effects == [
                .updateTransaction(
                    transactionID: "t1", state: kind == .refund ? .refunded : .revoked, cancellationDate: F.t0)
            ])
        #expect(decision.reason == "refunded_before_credit")
        #expect(decision.accountID == nil)
    }

    // MARK: Taken back after a credit

    struct ShareCase: Sendable, CustomTestStringConvertible {
        var kind: TakeBackKind
        var share: Int?
        var credited: Int
        var debit: Int
        var testDescription: String { "\(kind) of \(share.map(String.init) ?? "all") of \(credited) takes \(debit)" }
    }

    static let shareCases: [ShareCase] = [
        ShareCase(kind: .refund, share: nil, credited: 100, debit: 100),
        ShareCase(kind: .refund, share: 100_000, credited: 100, debit: 100),
        ShareCase(kind: .refund, share: 50_000, credited: 100, debit: 50),
        ShareCase(kind: .refund, share: 0, credited: 100, debit: 0),
        ShareCase(kind: .refund, share: 33_333, credited: 100, debit: 33),
        ShareCase(kind: .refund, share: 99_999, credited: 100, debit: 99),
        ShareCase(kind: .refund, share: 1, credited: 100, debit: 0),
        ShareCase(kind: .refund, share: 50_000, credited: 15, debit: 7),
        ShareCase(kind: .refund, share: 50_000, credited: Int.max, debit: 4_611_686_018_427_387_903),
        ShareCase(kind: .refund, share: 99_999, credited: Int.max, debit: 9_223_279_803_134_407_259),
        ShareCase(kind: .revoke, share: nil, credited: 100, debit: 100),
        ShareCase(kind: .revoke, share: 25_000, credited: 300, debit: 75),
        ShareCase(kind: .revoke, share: 100_000, credited: Int.max, debit: Int.max),
    ]

    @Test(arguments: shareCases)
    func aCreditedPurchase_isDebitedItsRefundedShare_roundedDown(_ row: ShareCase) throws {
        // Given coins credited to a1 by r0, and still held
        let state = SettlementState(
            known: F.known("t1", purchase: Money(currency: "coins", amount: row.credited)),
            accounts: ["a1": F.payer(["coins": row.credited])])

        // When Apple takes back `share` of it
        let transaction = F.purchase("t1", cancelled: F.at(days: 0.5), share: row.share)
        let decision = try F.decide(.takenBack(transaction, kind: row.kind, cause: Self.cause), state)

        // Then a1 is debited that share with the kind's entry (none when the share rounds to
        // nothing: the ledger holds no zero entries), the row changes state, and a1 hears of it
        let posting = F.posting(
            "a1", "coins", -row.debit, row.kind == .refund ? .refund : .revoke, cause: Self.cause, transaction: "t1")
        #expect(
            decision.effects == (row.debit == 0 ? [] : [posting]) + [
                .updateTransaction(
                    transactionID: "t1", state: row.kind == .refund ? .refunded : .revoked,
                    cancellationDate: F.at(days: 0.5)),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "t1",
                    currency: row.debit == 0 ? nil : "coins", amount: row.debit == 0 ? nil : -row.debit, uuid: "U1",
                    balance: row.debit == 0 ? nil : row.credited - row.debit, writtenOff: row.debit == 0 ? nil : 0),
            ])
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
    }

    @Test(arguments: [Int.max, 1_000_000_000, 123_456_789, 99_999, 7, 1], [0, 1, 33_333, 50_000, 99_999, 100_000])
    func theRefundedShare_isTheFloorOfAmountTimesShare_withoutOverflow(_ amount: Int, _ share: Int) {
        // Given an exact 128-bit product amount × share / 100000
        let wide = amount.multipliedFullWidth(by: share)
        let exact = 100_000.dividingFullWidth((high: wide.high, low: wide.low)).quotient

        // When the engine computes the share / Then it is the exact floor, never more than the amount
        #expect(SettlementEngine.share(of: amount, milliPercent: share) == exact)
        #expect(SettlementEngine.share(of: amount, milliPercent: share) <= amount)
        #expect(SettlementEngine.share(of: amount, milliPercent: nil) == amount)
    }

    struct EntitlementCase: Sendable, CustomTestStringConvertible {
        var name: String
        var current: Date??
        var cancelled: Date?
        /// The new end, when the entitlement changes.
        var set: Date?
        var told: Date?
        var testDescription: String { name }
    }

    static let entitlementCases: [EntitlementCase] = [
        EntitlementCase(
            name: "ends at the cancellation", current: F.at(days: 30), cancelled: F.at(days: 0.5), set: F.at(days: 0.5),
            told: F.at(days: 0.5)),
        EntitlementCase(
            name: "future cancellation: ends now", current: F.at(days: 30), cancelled: F.at(days: 3), set: F.now,
            told: F.now),
        EntitlementCase(
            name: "for ever: ends at the cancellation", current: .some(nil), cancelled: F.at(days: 0.5),
            set: F.at(days: 0.5), told: F.at(days: 0.5)),
        EntitlementCase(
            name: "already ended earlier: unchanged", current: F.at(days: 0.25), cancelled: F.at(days: 0.5), set: nil,
            told: F.at(days: 0.25)),
    ]

    @Test(arguments: entitlementCases)
    func aTakenBackSubscription_endsItsEntitlement_atTheEarlierOfCancellationAndNow(_ row: EntitlementCase) throws {
        // Given vip credited to a1 by s1, a1 holding vip as the case says
        let state = SettlementState(
            known: F.knownVIP(), bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: row.current)])

        // When Apple refunds s1
        let transaction = F.purchase("s1", product: F.vip, expires: F.at(days: 30), cancelled: row.cancelled)
        let decision = try F.decide(.takenBack(transaction, kind: .refund, cause: Self.cause), state)

        // Then no money moves; vip ends no later than the cancellation, and the webhook tells the end
        var expected: [SettlementEffect] = []
        if let set = row.set {
            expected.append(
                .setEntitlement(
                    accountID: "a1", name: "vip", end: EntitlementEnd(expiresAt: set, originalTransactionID: "s1")))
        }
        expected += [
            .updateTransaction(
                transactionID: "s1", state: .refunded, cancellationDate: min(row.cancelled ?? F.now, F.now)),
            F.transactionWebhook(
                .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "s1", product: F.vip,
                entitlement: "vip", expiresAt: row.told, uuid: "U1"),
        ]
        #expect(decision.effects == expected)
    }

    @Test func aTakenBackSubscription_whoseAccountLostTheEntitlement_setsNone() throws {
        // Given vip credited to a1, who no longer holds vip at all
        let state = SettlementState(known: F.knownVIP(), accounts: ["a1": F.holder()])

        // When Apple revokes s1
        let decision = try F.decide(
            .takenBack(F.purchase("s1", product: F.vip, cancelled: F.t0), kind: .revoke, cause: Self.cause), state)

        // Then the row is revoked and the webhook names no entitlement
        #expect(
            decision.effects == [
                .updateTransaction(transactionID: "s1", state: .revoked, cancellationDate: F.t0),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "s1", product: F.vip,
                    uuid: "U1"),
            ])
    }

    static let alreadyTaken: [F.Named<KnownTransaction>] = [
        F.Named("debited, then reversed", F.known(debit: Money(currency: "coins", amount: -100), reversed: true)),
        F.Named("refunded after credit", F.known(state: .refunded, debit: Money(currency: "coins", amount: -100))),
        F.Named("revoked after credit", F.known(state: .revoked, debit: Money(currency: "coins", amount: -100))),
        F.Named("refunded before credit", F.known(state: .refunded, account: nil, purchase: nil)),
        F.Named("revoked before credit", F.known(state: .revoked, account: nil, purchase: nil)),
        F.Named("credited to no account", F.known(account: nil)),
    ]

    @Test(arguments: alreadyTaken, [TakeBackKind.refund, .revoke])
    func aTransactionIsDebitedOnce_aSecondTakeBackChangesNothing(_ row: F.Named<KnownTransaction>, _ kind: TakeBackKind)
        throws
    {
        // Given a transaction already taken back (or never in credit)
        let state = SettlementState(known: row.value)

        // When Apple takes it back again
        let decision = try F.decide(.takenBack(F.purchase("t1", cancelled: F.t0), kind: kind, cause: Self.cause), state)

        // Then nothing moves
        #expect(decision.effects == [])
        #expect(decision.reason == "already_refunded")
        #expect(decision.accountID == row.value.accountID)
    }

    // MARK: Refund reversed

    static let notRefunded: [F.Named<KnownTransaction?>] = [
        F.Named("never seen", nil),
        F.Named("credited", F.known()),
        F.Named("unpaid", F.known(state: .unpaid, account: nil, purchase: nil)),
        F.Named(
            "reversed already", F.known(state: .refunded, debit: Money(currency: "coins", amount: -100), reversed: true)
        ),
    ]

    @Test(arguments: notRefunded)
    func aReversalOfWhatIsNotRefunded_changesNothing(_ row: F.Named<KnownTransaction?>) throws {
        // Given a transaction that is not (or no longer) refunded
        let state = SettlementState(known: row.value)

        // When Apple reverses a refund of it
        let decision = try F.decide(.refundReversed(F.purchase("t1"), cause: Self.cause), state)

        // Then nothing moves
        #expect(decision.effects == [])
        #expect(decision.reason == "not_refunded")
        #expect(decision.accountID == row.value?.accountID)
    }

    static let neverCredited: [F.Named<KnownTransaction>] = [
        F.Named("refunded before credit", F.known(state: .refunded, account: nil, purchase: nil)),
        F.Named("revoked before credit", F.known(state: .revoked, account: nil, purchase: nil)),
        F.Named("refunded with money but no account", F.known(state: .refunded, account: nil)),
        F.Named("refunded for an account it never credited", F.known(state: .refunded, purchase: nil)),
    ]

    @Test(arguments: neverCredited)
    func aReversalOfARefundBeforeCredit_forgetsTheTransaction(_ row: F.Named<KnownTransaction>) throws {
        // Given a transaction refunded before it ever credited
        let state = SettlementState(known: row.value)

        // When Apple reverses the refund
        let decision = try F.decide(.refundReversed(F.purchase("t1"), cause: Self.cause), state)

        // Then it is forgotten, so that a receipt may credit it
        #expect(decision.effects == [.forgetTransaction(transactionID: "t1")])
        #expect(decision.reason == "refund_forgotten_before_credit")
        #expect(decision.accountID == nil)
    }

    @Test(arguments: [TransactionState.refunded, .revoked], [-100, -50, -1, 0])
    func aReversal_givesBackExactlyTheDebit_andCreditsTheRowAgain(_ state: TransactionState, _ debit: Int) throws {
        // Given coins credited to a1 and debited `debit`
        let known = F.known(state: state, debit: Money(currency: "coins", amount: debit))

        // When Apple reverses the refund
        let decision = try F.decide(.refundReversed(F.purchase("t1"), cause: Self.cause), SettlementState(known: known))

        // Then exactly the debit comes back (the ledger holds no zero entries), and a1 hears of it
        #expect(
            decision.effects
                == (debit == 0
                    ? [] : [F.posting("a1", "coins", -debit, .refundReversal, cause: Self.cause, transaction: "t1")])
                + [
                    .updateTransaction(transactionID: "t1", state: .credited, cancellationDate: nil),
                    F.transactionWebhook(
                        .purchaseRefundReversed, to: "a1", receipt: "r0", notification: "n1", transaction: "t1",
                        currency: "coins", amount: -debit, uuid: "U1"),
                ])
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
    }

    static let restored: [F.Named<(current: Date??, end: Date?, original: String)>] = [
        F.Named("cut at the refund: back to the period's end", (F.at(days: 0.5), F.at(days: 30), "s1")),
        F.Named("gone: the period's end, its original", (nil, F.at(days: 30), "s1")),
        F.Named("renewed since, later: kept", (F.at(days: 60), F.at(days: 60), "s1")),
        F.Named("for ever: kept", (.some(nil), nil, "s1")),
    ]

    @Test(arguments: restored)
    func aReversal_restoresTheEntitlement_laterEndWins(_ row: F.Named<(current: Date??, end: Date?, original: String)>)
        throws
    {
        // Given vip s1 (period until day 30) refunded, a1 holding vip as the case says
        let state = SettlementState(
            known: F.knownVIP(state: .refunded), bound: F.knownVIP(state: .refunded),
            accounts: ["a1": F.holder(vipUntil: row.value.current)])

        // When Apple reverses the refund
        let decision = try F.decide(.refundReversed(F.purchase("s1", product: F.vip), cause: Self.cause), state)

        // Then vip ends at the later end again; no money moves
        #expect(
            decision.effects == [
                .setEntitlement(
                    accountID: "a1", name: "vip",
                    end: EntitlementEnd(expiresAt: row.value.end, originalTransactionID: row.value.original)),
                .updateTransaction(transactionID: "s1", state: .credited, cancellationDate: nil),
                F.transactionWebhook(
                    .purchaseRefundReversed, to: "a1", receipt: "r0", notification: "n1", transaction: "s1",
                    product: F.vip, entitlement: "vip", expiresAt: row.value.end, uuid: "U1"),
            ])
    }
}
