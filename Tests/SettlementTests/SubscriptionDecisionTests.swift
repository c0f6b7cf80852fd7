import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Renewals reported by Apple's notifications and the scheduler's checks, expiry, billing
/// grace, consumption requests and the check's conclusion of a lapse.
@Suite struct SubscriptionDecisionTests {
    typealias F = EngineFixture
    static let cause = F.notice("n1", uuid: "U1")
    static let renewal = F.purchase("s2", product: F.vip, original: "s1", expires: F.at(days: 60))

    // MARK: Notifications

    static let unboundNotices: [F.Named<(VerifiedTransaction, KnownTransaction?)>] = [
        F.Named("a new renewal", (renewal, nil)),
        F.Named("a consumable", (F.purchase("t1"), nil)),
        F.Named("an unknown product", (F.purchase("t1", product: "com.example.unknown"), nil)),
        F.Named("a cancelled one", (F.purchase("t1", cancelled: F.t0), nil)),
        F.Named("a known one", (F.purchase("t1"), F.known("t1", account: nil, purchase: nil))),
    ]

    @Test(arguments: unboundNotices)
    func aNotificationOfAnUnboundTransactionWithoutAKnownToken_waits(
        _ row: F.Named<(VerifiedTransaction, KnownTransaction?)>
    ) throws {
        // Given no binding and no known token
        let state = SettlementState(known: row.value.1)

        // When a notification reports the transaction
        let decision = try F.decide(.transactionVerified(row.value.0, source: .notification(Self.cause)), state)

        // Then nothing is recorded: the receipt that comes later binds it
        #expect(decision.effects == [])
        #expect(decision.reason == "unbound")
        #expect(decision.accountID == nil)
        #expect(decision.outcome == nil)
    }

    @Test(arguments: [
        F.Named("bound to a1", ("a1" as String?, nil as String?, BindingPath.originalTransaction)),
        F.Named("bound to a1, token of a2", ("a1", "a2", .originalTransaction)),
        F.Named("unbound, token of a1", (nil, "a1", .appAccountToken)),
    ])
    func aNotifiedRenewal_creditsTheBoundAccount_andAnnouncesTheNotification(
        _ row: F.Named<(String?, String?, BindingPath)>
    ) throws {
        let (bound, token, path) = row.value
        // Given a1 holding vip until day 30 (from s1), bound or known by its token
        let state = SettlementState(
            bound: bound.map { F.knownVIP(account: $0) }, tokenOwner: token,
            accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])

        // When notification n1 reports the renewal s2
        let decision = try F.decide(.transactionVerified(Self.renewal, source: .notification(Self.cause)), state)

        // Then a1 is credited, vip extended, and the renewal webhook carries n1 and its uuid
        #expect(
            decision.effects == [
                .openAccount("a1"),
                .recordTransaction(
                    F.creditedRecord(Self.renewal, cause: Self.cause, account: "a1", binding: path, entitlement: "vip")),
                .setEntitlement(
                    accountID: "a1", name: "vip",
                    end: EntitlementEnd(expiresAt: F.at(days: 60), originalTransactionID: "s1")),
                F.transactionWebhook(
                    .subscriptionRenewed, to: "a1", receipt: nil, notification: "n1", transaction: "s2", original: "s1",
                    product: F.vip, entitlement: "vip", expiresAt: F.at(days: 60), uuid: "U1"),
            ])
        #expect(decision.outcome == .credited)
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
    }

    @Test func aNotifiedConsumable_ofAKnownToken_creditsItsOwner_withTheAmountInTheWebhook() throws {
        // Given a coins purchase whose token belongs to a2
        let transaction = F.purchase("t1", token: "tok")

        // When a notification reports it
        let decision = try F.decide(
            .transactionVerified(transaction, source: .notification(Self.cause)), SettlementState(tokenOwner: "a2"))

        // Then a2 gets the coins, recorded against the notification, and hears of the purchase
        #expect(
            decision.effects == [
                .openAccount("a2"),
                .recordTransaction(
                    F.creditedRecord(transaction, cause: Self.cause, account: "a2", binding: .appAccountToken)),
                F.posting("a2", "coins", 100, .purchase, cause: Self.cause, transaction: "t1"),
                F.transactionWebhook(
                    .purchaseCredited, to: "a2", receipt: nil, notification: "n1", transaction: "t1",
                    currency: "coins",
                    amount: 100, uuid: "U1"),
            ])
    }

    @Test func aNotificationOfACreditedTransaction_isAlreadyCredited_forTheBoundAccount() throws {
        // Given s1 credited to a1 and bound
        let state = SettlementState(known: F.knownVIP(), bound: F.knownVIP())
        // When a notification reports s1 again
        let decision = try F.decide(
            .transactionVerified(F.purchase("s1", product: F.vip), source: .notification(Self.cause)), state)
        // Then nothing changes
        #expect(decision.effects == [])
        #expect(decision.outcome == .alreadyCredited)
        #expect(decision.accountID == "a1")
    }

    @Test func aNotificationOfACancelledCreditedTransaction_refundsIt() throws {
        // Given coins credited to a1 (bound), and a notification showing them cancelled
        let state = SettlementState(
            known: F.known("t1"), bound: F.known("t1"), accounts: ["a1": F.payer(["coins": 100])])
        let transaction = F.purchase("t1", cancelled: F.at(days: 0.5))

        // When it is decided
        let decision = try F.decide(.transactionVerified(transaction, source: .notification(Self.cause)), state)

        // Then it is a refund, recorded against the notification
        #expect(
            decision.effects == [
                F.posting("a1", "coins", -100, .refund, cause: Self.cause, transaction: "t1"),
                .updateTransaction(transactionID: "t1", state: .refunded, cancellationDate: F.at(days: 0.5)),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: "n1", transaction: "t1",
                    currency: "coins", amount: -100, uuid: "U1", balance: 0, writtenOff: 0),
            ])
        #expect(decision.outcome == .refunded)
    }

    // MARK: Subscription checks

    @Test(arguments: [F.Named("bound to a2", "a2" as String?), F.Named("unbound", nil)])
    func aCheckedRenewal_creditsTheBoundAccount_elseTheChecksAccount(_ row: F.Named<String?>) throws {
        // Given a check planned for a1, the subscription bound as the case says
        let cause = Cause(environment: "Production")
        let source = SettlementEvent.Source.subscriptionCheck(checkID: "k1", accountID: "a1", cause: cause)
        let state = SettlementState(bound: row.value.map { F.knownVIP(account: $0) })
        let account = row.value ?? "a1"

        // When the check finds the renewal
        let decision = try F.decide(.transactionVerified(Self.renewal, source: source), state)

        // Then that account is credited, with no conflict, and hears of the renewal
        #expect(
            decision.effects == [
                .openAccount(account),
                .recordTransaction(
                    F.creditedRecord(
                        Self.renewal, cause: cause, account: account, binding: .originalTransaction, entitlement: "vip")
                ),
                .setEntitlement(
                    accountID: account, name: "vip",
                    end: EntitlementEnd(expiresAt: F.at(days: 60), originalTransactionID: "s1")),
                F.transactionWebhook(
                    .subscriptionRenewed, to: account, receipt: nil, notification: nil, transaction: "s2",
                    original: "s1",
                    product: F.vip, entitlement: "vip", expiresAt: F.at(days: 60)),
            ])
        #expect(decision.accountID == account)
        #expect(decision.outcome == .credited)
    }

    @Test func aCheckFindingACreditedTransactionCancelled_revokesIt() throws {
        // Given coins credited to a1, who spent them all
        let state = SettlementState(
            known: F.known("t1"), bound: F.known("t1"), accounts: ["a1": F.payer(["coins": 0])])
        let source = SettlementEvent.Source.subscriptionCheck(checkID: "k1", accountID: "a1", cause: Cause())

        // When the check finds them cancelled
        let decision = try F.decide(.transactionVerified(F.purchase("t1", cancelled: F.t0), source: source), state)

        // Then it is a revocation: a revoke debit, the row revoked, and a1, now owing 100
        // (the default policy allows it), flagged
        #expect(
            decision.effects == [
                F.posting("a1", "coins", -100, .revoke, cause: Cause(), transaction: "t1"),
                .flagAccount(
                    AccountFlag(
                        accountID: "a1", reason: .negativeBalance, currency: "coins", amount: -100, transactionID: "t1")
                ),
                .updateTransaction(transactionID: "t1", state: .revoked, cancellationDate: F.t0),
                F.transactionWebhook(
                    .purchaseRefunded, to: "a1", receipt: "r0", notification: nil, transaction: "t1", currency: "coins",
                    amount: -100, balance: -100, writtenOff: 0),
            ])
        #expect(decision.outcome == .refunded)
        #expect(decision.accountID == "a1")
    }

    // MARK: Expiry

    struct ExpiryCase: Sendable, CustomTestStringConvertible {
        var name: String
        var current: Date??
        var expires: Date?
        var set: Date?
        var told: Date?
        var testDescription: String { name }
    }

    static let expiryCases: [ExpiryCase] = [
        ExpiryCase(
            name: "ends at the period's end", current: F.at(days: 30), expires: F.at(days: 0.5), set: F.at(days: 0.5),
            told: F.at(days: 0.5)),
        ExpiryCase(name: "no period end: ends now", current: F.at(days: 30), expires: nil, set: F.now, told: F.now),
        ExpiryCase(
            name: "future period end: ends now", current: F.at(days: 30), expires: F.at(days: 3), set: F.now,
            told: F.now),
        ExpiryCase(
            name: "for ever: ends", current: .some(nil), expires: F.at(days: 0.5), set: F.at(days: 0.5),
            told: F.at(days: 0.5)),
        ExpiryCase(
            name: "ended earlier: unchanged, still told", current: F.at(days: 0.25), expires: F.at(days: 0.5), set: nil,
            told: F.at(days: 0.25)),
    ]

    @Test(arguments: expiryCases, [F.Named("known by r0", "r0" as String?), F.Named("not known", nil)])
    func anExpiry_endsTheBoundAccountsEntitlement_andTellsIt(_ row: ExpiryCase, _ receipt: F.Named<String?>) throws {
        // Given s1 bound to a1, who holds vip as the case says
        let known = receipt.value.map { F.known("s2", product: F.vip, original: "s1", receipt: $0) }
        let state = SettlementState(
            known: known, bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: row.current)])
        let transaction = F.purchase("s2", product: F.vip, original: "s1", expires: row.expires)

        // When Apple says the period expired
        let decision = try F.decide(.expired(transaction, cause: Self.cause), state)

        // Then vip ends no later than the period's end and now, and a1 hears subscription.expired
        var expected: [SettlementEffect] = []
        if let set = row.set {
            expected.append(
                .setEntitlement(
                    accountID: "a1", name: "vip", end: EntitlementEnd(expiresAt: set, originalTransactionID: "s1")))
        }
        expected.append(
            F.transactionWebhook(
                .subscriptionExpired, to: "a1", receipt: receipt.value, notification: "n1", transaction: "s2",
                original: "s1",
                product: F.vip, entitlement: "vip", expiresAt: row.told, uuid: "U1"))
        #expect(decision.effects == expected)
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
    }

    @Test func anExpiryOfAProductTheCatalogDropped_endsTheEntitlementTheBindingGranted() throws {
        // Given s1 bound to a1 with vip, and an expiry of a product the catalog no longer sells
        let state = SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: F.at(days: 30))])
        let transaction = F.purchase("s2", product: "com.example.vip.legacy", original: "s1", expires: F.t0)

        // When it is decided
        let decision = try F.decide(.expired(transaction, cause: Self.cause), state)

        // Then vip ends at the period's end
        #expect(
            decision.effects.first
                == .setEntitlement(
                    accountID: "a1", name: "vip", end: EntitlementEnd(expiresAt: F.t0, originalTransactionID: "s1")))
    }

    static let noSubscriptionChange: [F.Named<(SettlementState, String, String?)>] = [
        F.Named("unbound", (SettlementState(tokenOwner: "a1"), "unbound", nil)),
        F.Named(
            "bound, no vip held",
            (SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder()]), "no_entitlement", "a1")),
        F.Named("bound, account unread", (SettlementState(bound: F.knownVIP()), "no_entitlement", "a1")),
    ]

    @Test(arguments: noSubscriptionChange)
    func anExpiryOrGraceWithoutABoundEntitlement_changesNothing(_ row: F.Named<(SettlementState, String, String?)>)
        throws
    {
        // Given a state without a bound account holding vip
        let transaction = F.purchase("s2", product: F.vip, original: "s1", expires: F.t0)

        // When the subscription expires, or enters a grace period
        let expired = try F.decide(.expired(transaction, cause: Self.cause), row.value.0)
        let grace = try F.decide(.gracePeriod(transaction, until: F.at(days: 5), cause: Self.cause), row.value.0)

        // Then nothing changes, and the reason says why
        for decision in [expired, grace] {
            #expect(decision.effects == [])
            #expect(decision.reason == row.value.1)
            #expect(decision.accountID == row.value.2)
        }
    }

    // MARK: Billing grace

    static let graceCases: [F.Named<(current: Date??, until: Date, set: Date?)>] = [
        F.Named("ends before the grace: extended", (F.at(days: 1), F.at(days: 5), F.at(days: 5))),
        F.Named("lapsed: extended", (F.at(days: -2), F.at(days: 5), F.at(days: 5))),
        F.Named("ends after the grace: kept", (F.at(days: 10), F.at(days: 5), nil)),
        F.Named("ends with the grace: kept", (F.at(days: 5), F.at(days: 5), nil)),
        F.Named("for ever: kept", (.some(nil), F.at(days: 5), nil)),
    ]

    @Test(arguments: graceCases)
    func aGracePeriod_keepsTheEntitlementAtLeastUntilItsEnd(_ row: F.Named<(current: Date??, until: Date, set: Date?)>)
        throws
    {
        // Given s1 bound to a1, who holds vip as the case says
        let state = SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: row.value.current)])

        // When Apple keeps the subscription until `until`
        let transaction = F.purchase("s2", product: F.vip, original: "s1")
        let decision = try F.decide(.gracePeriod(transaction, until: row.value.until, cause: Self.cause), state)

        // Then vip lasts at least that long; no webhook, no money
        let expected: [SettlementEffect] =
            row.value.set.map {
                [
                    .setEntitlement(
                        accountID: "a1", name: "vip", end: EntitlementEnd(expiresAt: $0, originalTransactionID: "s1"))
                ]
            } ?? []
        #expect(decision.effects == expected)
        #expect(decision.accountID == "a1")
        #expect(decision.reason == nil)
    }

    @Test func aGracePeriodWithoutAnEnd_changesNothing() throws {
        // Given s1 bound to a1 with vip / When a grace period has no end
        let state = SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: F.t0)])
        let decision = try F.decide(.gracePeriod(Self.renewal, until: nil, cause: Self.cause), state)
        // Then nothing changes
        #expect(decision.effects == [])
        #expect(decision.reason == "no_grace_period")
        #expect(decision.accountID == "a1")
    }

    // MARK: Consumption requests

    static let consumptionCases: [F.Named<(String?, String?, String?)>] = [
        F.Named("known and bound: the known's", ("a1", "a2", "a1")),
        F.Named("bound only", (nil, "a2", "a2")),
        F.Named("known only", ("a1", nil, "a1")),
        F.Named("neither", (nil, nil, nil)),
    ]

    @Test(arguments: consumptionCases)
    func aConsumptionRequest_movesNothing_andNamesTheAccount(_ row: F.Named<(String?, String?, String?)>) throws {
        // Given the transaction as the case knows it
        let state = SettlementState(
            known: row.value.0.map { F.known("t1", account: $0) }, bound: row.value.1.map { F.known("t1", account: $0) }
        )
        // When Apple asks what was consumed
        let decision = try F.decide(.consumptionRequest(F.purchase("t1"), cause: Self.cause), state)
        // Then nothing moves
        #expect(decision.effects == [])
        #expect(decision.reason == "consumption_request")
        #expect(decision.accountID == row.value.2)
        #expect(decision.outcome == nil)
    }

    // MARK: Lapse concluded by a check

    static let lapses: [F.Named<(SettlementState, String)>] = [
        F.Named("unbound", (SettlementState(), "unchanged")),
        F.Named("bound to no account", (SettlementState(bound: F.knownVIP(account: nil)), "unchanged")),
        F.Named("no vip held", (SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder()]), "unchanged")),
        F.Named(
            "vip for ever",
            (SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: .some(nil))]), "renewed")),
        F.Named(
            "vip runs on",
            (SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: F.at(days: 1.01))]), "renewed")),
    ]

    @Test(arguments: lapses)
    func aLapseWithNothingToEnd_sendsNothing(_ row: F.Named<(SettlementState, String)>) {
        // Given the state of the case / When the check concludes the lapse at now
        let lapse = F.engine.concludeLapse(
            entitlement: "vip", state: row.value.0, cause: Cause(receiptID: "r1"), now: F.now)
        // Then it concludes the expected outcome, and sends nothing
        #expect(lapse.outcome == row.value.1)
        #expect(lapse.effects == [])
    }

    @Test(arguments: [F.now, F.at(days: 0.5), F.t0])
    func aLapsedEntitlement_isExpired_withOneWebhookForTheBoundAccount(_ end: Date) {
        // Given vip of a1 ended at `end`, no later than now
        let state = SettlementState(bound: F.knownVIP(), accounts: ["a1": F.holder(vipUntil: end)])
        // When the check concludes the lapse
        let lapse = F.engine.concludeLapse(entitlement: "vip", state: state, cause: Cause(receiptID: "r1"), now: F.now)
        // Then the subscription expired, told with the first transaction's ids
        #expect(lapse.outcome == "expired")
        #expect(
            lapse.effects == [
                F.transactionWebhook(
                    .subscriptionExpired, to: "a1", receipt: "r1", notification: nil, transaction: "s1", product: F.vip,
                    entitlement: "vip", expiresAt: end)
            ])
    }
}
