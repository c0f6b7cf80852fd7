import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// Which account a receipt's purchase credits: a bound subscription's first account, else
/// the order's account, else the token's owner, else the submitter; and what a credit does
/// to the entitlement it extends.
@Suite struct BindingDecisionTests {
    typealias F = EngineFixture

    // MARK: The binding order

    struct BindingCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bound: String?
        var orderAccount: String?
        var tokenOwner: String?
        var account: String
        var path: BindingPath
        var testDescription: String { name }
    }

    static let bindingCases: [BindingCase] = [
        BindingCase(name: "nothing known: the submitter", account: "a1", path: .submitter),
        BindingCase(name: "token of a2: a2", tokenOwner: "a2", account: "a2", path: .appAccountToken),
        BindingCase(name: "token of the submitter: a1", tokenOwner: "a1", account: "a1", path: .appAccountToken),
        BindingCase(name: "order of a3 beats token", orderAccount: "a3", tokenOwner: "a2", account: "a3", path: .order),
        BindingCase(name: "order of the submitter", orderAccount: "a1", account: "a1", path: .order),
        BindingCase(
            name: "bound to the submitter beats order and token", bound: "a1", orderAccount: "a3", tokenOwner: "a2",
            account: "a1", path: .originalTransaction),
    ]

    @Test(arguments: bindingCases)
    func aReceiptsPurchase_creditsTheAccountOfTheFirstRuleThatApplies(_ row: BindingCase) throws {
        // Given a renewal s2 of subscription s1, claimed by a1, in the given state
        let transaction = F.purchase("s2", product: F.vip, original: "s1", expires: F.at(days: 60))
        let order = row.orderAccount.map {
            OrderClaim(orderID: "o1", accountID: $0, productID: F.vip, product: F.catalog.product(F.vip))
        }
        let state = SettlementState(bound: row.bound.map { F.knownVIP(account: $0) }, tokenOwner: row.tokenOwner)
        let source = F.receipt("r1", by: "a1", order: order)

        // When the engine decides it
        let decision = try F.decide(.transactionVerified(transaction, source: source), state)

        // Then the expected account is credited by the expected rule, and a conflict is recorded iff it is not a1
        let records = decision.effects.compactMap { effect -> TransactionRecord? in
            if case .recordTransaction(let record) = effect { record } else { nil }
        }
        #expect(records.map(\.accountID) == [row.account])
        #expect(records.map(\.binding) == [row.path])
        #expect(decision.accountID == row.account)
        #expect(decision.outcome == .credited)
        let conflicts = decision.effects.compactMap { effect -> ClaimConflict? in
            if case .recordConflict(let conflict) = effect { conflict } else { nil }
        }
        let expected =
            row.account == "a1"
            ? []
            : [
                ClaimConflict(
                    transactionID: "s2", originalTransactionID: "s1", receiptID: "r1", claimantAccountID: "a1",
                    creditedAccountID: row.account, binding: row.path)
            ]
        #expect(conflicts == expected)
        #expect(decision.effects.first == (expected.isEmpty ? .openAccount(row.account) : .recordConflict(expected[0])))
    }

    @Test func aRenewalSentByAnotherAccount_creditsTheBoundAccount_andTellsItsBackend() throws {
        // Given subscription s1 bound to a2, who holds vip until day 30
        let state = SettlementState(
            bound: F.knownVIP(account: "a2"), tokenOwner: "a1", accounts: ["a2": F.holder(vipUntil: F.at(days: 30))])
        let transaction = F.purchase("s2", product: F.vip, original: "s1", expires: F.at(days: 60))
        let source = F.receipt("r1", by: "a1")

        // When a1's receipt carries the renewal
        let decision = try F.decide(.transactionVerified(transaction, source: source), state)

        // Then a2 is credited, the conflict recorded, and a2 hears of the renewal; a1's receipt credits nothing
        #expect(
            decision.effects == [
                .recordConflict(
                    ClaimConflict(
                        transactionID: "s2", originalTransactionID: "s1", receiptID: "r1", claimantAccountID: "a1",
                        creditedAccountID: "a2", binding: .originalTransaction)),
                .openAccount("a2"),
                .recordTransaction(
                    F.creditedRecord(
                        transaction, cause: source.cause, account: "a2", binding: .originalTransaction,
                        entitlement: "vip")),
                .setEntitlement(
                    accountID: "a2", name: "vip",
                    end: EntitlementEnd(expiresAt: F.at(days: 60), originalTransactionID: "s1")),
                F.transactionWebhook(
                    .subscriptionRenewed, to: "a2", receipt: "r1", notification: nil, transaction: "s2", original: "s1",
                    product: F.vip, entitlement: "vip", expiresAt: F.at(days: 60)),
            ])
        #expect(decision.outcome == .boundToAnotherAccount)
        #expect(decision.accountID == nil)
        #expect(decision.credit == nil)
        #expect(decision.reason == nil)
    }

    @Test func aRenewalSentByAnotherAccount_withAnOrder_leavesTheOrderOpen() throws {
        // Given subscription s1 bound to a2, and a1's receipt naming a1's order for vip
        let order = OrderClaim(orderID: "o1", accountID: "a1", productID: F.vip, product: F.catalog.product(F.vip))
        let state = SettlementState(bound: F.knownVIP(account: "a2"))
        let transaction = F.purchase("s2", product: F.vip, original: "s1", expires: F.at(days: 60))

        // When the receipt's renewal is decided
        let decision = try F.decide(.transactionVerified(transaction, source: F.receipt(order: order)), state)

        // Then the renewal is a2's: the order is neither closed nor reported
        #expect(!decision.effects.contains { if case .closeOrder = $0 { true } else { false } })
        #expect(decision.order == nil)
        #expect(decision.outcome == .boundToAnotherAccount)
    }

    // MARK: Orders

    struct OrderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var orderedProduct: String
        var appleProduct: String
        var orderAccount: String
        var matches: Bool
        var creditedProduct: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        OrderCase(
            name: "ordered coins, paid coins", orderedProduct: F.coins, appleProduct: F.coins, orderAccount: "a1",
            matches: true, creditedProduct: F.coins),
        OrderCase(
            name: "ordered starter, paid coins: Apple's product credited", orderedProduct: F.starter,
            appleProduct: F.coins, orderAccount: "a1", matches: false, creditedProduct: F.coins),
        OrderCase(
            name: "order of a3, paid coins: a3 credited, conflict", orderedProduct: F.coins, appleProduct: F.coins,
            orderAccount: "a3", matches: true, creditedProduct: F.coins),
    ])
    func anOrdersPayment_creditsTheOrderAccount_andClosesTheOrder(_ row: OrderCase) throws {
        // Given a1's receipt naming order o1 (of `orderAccount`, for `orderedProduct`)
        let order = OrderClaim(
            orderID: "o1", accountID: row.orderAccount, productID: row.orderedProduct,
            product: F.catalog.product(row.orderedProduct))
        let transaction = F.purchase("t1", product: row.appleProduct)
        let source = F.receipt("r1", by: "a1", order: order)

        // When its purchase is decided
        let decision = try F.decide(
            .transactionVerified(transaction, source: source), SettlementState(tokenOwner: "a2"))

        // Then the order's account is credited with Apple's product, and the order closed
        var expected: [SettlementEffect] = []
        if row.orderAccount != "a1" {
            expected.append(
                .recordConflict(
                    ClaimConflict(
                        transactionID: "t1", originalTransactionID: "t1", receiptID: "r1", claimantAccountID: "a1",
                        creditedAccountID: row.orderAccount, binding: .order)))
        }
        expected += [
            .openAccount(row.orderAccount),
            .recordTransaction(
                F.creditedRecord(
                    transaction, cause: source.cause, account: row.orderAccount, binding: .order,
                    catalogProduct: row.creditedProduct, order: "o1")),
            F.posting(row.orderAccount, "coins", 100, .purchase, cause: source.cause, transaction: "t1"),
            .closeOrder(
                OrderClosing(
                    orderID: "o1", matches: row.matches,
                    reason: row.matches ? "paid" : "paid for \(row.creditedProduct) (Apple's product)", receiptID: "r1",
                    transactionID: "t1", creditedProductID: row.creditedProduct)),
        ]
        #expect(decision.effects == expected)
        #expect(
            decision.order
                == OrderEventData(
                    orderID: "o1", status: row.matches ? "fulfilled" : "mismatched", productID: row.orderedProduct,
                    creditedProductID: row.creditedProduct, mismatched: !row.matches))
        #expect(decision.accountID == row.orderAccount)
        #expect(decision.outcome == .credited)
    }

    @Test func anOrderPaidThroughASharedTier_creditsTheOrderedProduct() throws {
        // Given two products on one Apple tier, gems_pack the default, and an order for coins_pack
        let tier = "com.example.tier5"
        let engine = SettlementEngine(
            catalog: Catalog(products: [
                Product(
                    productID: "gems_pack", kind: .consumable, appleProductID: tier,
                    grant: Grant(currency: "gems", amount: 50), tierDefault: true),
                Product(
                    productID: "coins_pack", kind: .consumable, appleProductID: tier,
                    grant: Grant(currency: "coins", amount: 900)),
            ]))
        let ordered = engine.catalog.product("coins_pack")
        let withOrder = F.receipt(
            order: OrderClaim(orderID: "o1", accountID: "a1", productID: "coins_pack", product: ordered))

        // When the tier's purchase is decided with the order, and without any
        let paid = try F.decide(
            .transactionVerified(F.purchase("t1", product: tier), source: withOrder), engine: engine)
        let unordered = try F.decide(
            .transactionVerified(F.purchase("t2", product: tier), source: F.receipt()), engine: engine)

        // Then the order gets its product; a purchase no order explains gets the default
        #expect(paid.credit?.currency == "coins")
        #expect(paid.credit?.amount == 900)
        #expect(paid.order?.status == "fulfilled")
        #expect(unordered.credit?.currency == "gems")
        #expect(unordered.credit?.amount == 50)
    }

    @Test func anOrderForARetiredProduct_paidWithAnotherProduct_isMismatched() throws {
        // Given a1's order for a product the catalog stopped selling, paid with coins
        let order = OrderClaim(orderID: "o1", accountID: "a1", productID: "com.example.retired", product: nil)

        // When the payment is decided
        let decision = try F.decide(.transactionVerified(F.purchase("t1"), source: F.receipt(order: order)))

        // Then coins are credited, but the order is mismatched: it asked for something else
        #expect(decision.credit?.amount == 100)
        #expect(decision.order?.status == "mismatched")
        #expect(decision.order?.mismatched == true)
        #expect(
            decision.effects.contains {
                if case .closeOrder(let closing) = $0 { !closing.matches } else { false }
            })
    }

    // MARK: Entitlements

    struct EntitlementCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The account's vip end before (`.some(nil)`: for ever; nil: none).
        var current: Date??
        var expires: Date?
        var end: Date?
        var original: String
        var testDescription: String { name }
    }

    static let entitlementCases: [EntitlementCase] = [
        EntitlementCase(
            name: "none yet: the period's end", current: nil, expires: F.at(days: 30), end: F.at(days: 30),
            original: "s9"),
        EntitlementCase(name: "none yet, no end: for ever", current: nil, expires: nil, end: nil, original: "s9"),
        EntitlementCase(
            name: "earlier end: extended", current: F.at(days: 10), expires: F.at(days: 30), end: F.at(days: 30),
            original: "s1"),
        EntitlementCase(
            name: "later end: kept", current: F.at(days: 40), expires: F.at(days: 30), end: F.at(days: 40),
            original: "s1"),
        EntitlementCase(
            name: "same end: kept", current: F.at(days: 30), expires: F.at(days: 30), end: F.at(days: 30),
            original: "s1"),
        EntitlementCase(
            name: "for ever beats a date", current: .some(nil), expires: F.at(days: 30), end: nil, original: "s1"),
        EntitlementCase(name: "no end beats a date", current: F.at(days: 10), expires: nil, end: nil, original: "s1"),
        EntitlementCase(
            name: "lapsed end: the new period's", current: F.at(days: -5), expires: F.at(days: 30), end: F.at(days: 30),
            original: "s1"),
    ]

    @Test(arguments: entitlementCases)
    func aCredit_extendsTheEntitlement_laterEndWins_neverBeatsAnyDate(_ row: EntitlementCase) throws {
        // Given a1 holding vip (from s1) as the case says, and a new vip purchase s9
        let transaction = F.purchase("s9", product: F.vip, expires: row.expires)
        let state = SettlementState(accounts: ["a1": F.holder(vipUntil: row.current)])

        // When a1's receipt carries it
        let decision = try F.decide(.transactionVerified(transaction, source: F.receipt()), state)

        // Then vip ends at the later of both ends (nil is for ever), keeping the first original transaction
        let ends = decision.effects.compactMap { effect -> EntitlementEnd? in
            if case .setEntitlement("a1", "vip", let end) = effect { end } else { nil }
        }
        #expect(ends == [EntitlementEnd(expiresAt: row.end, originalTransactionID: row.original)])
        #expect(!decision.effects.contains { if case .post = $0 { true } else { false } })
        #expect(
            decision.credit
                == CarriedTransaction(
                    transactionID: "s9", productID: F.vip, outcome: .credited, entitlement: "vip",
                    expiresAt: row.expires))
    }
}

/// A purchase no client posted (a web shop's payment) binds to the account the store names
/// for it, after the subscription's and the token's rules.
@Suite struct StoreAccountBindingTests {
    typealias F = EngineFixture

    @Test(arguments: [
        (tokenOwner: String?.none, storeAccount: String?.none, account: String?.none, path: BindingPath?.none),
        (nil, "a5", "a5", .storeAccount),
        ("a2", "a5", "a2", .appAccountToken),
    ])
    func aNotifiedPurchase_bindsToTheStoresAccount_onlyWhenNoEarlierRuleApplies(
        tokenOwner: String?, storeAccount: String?, account: String?, path: BindingPath?
    ) throws {
        var transaction = F.purchase("w1", product: F.vip, original: "w1", expires: F.at(days: 30))
        transaction.storeAccountID = storeAccount
        let state = SettlementState(tokenOwner: tokenOwner)

        let decision = try F.decide(.transactionVerified(transaction, source: .notification(F.notice())), state)

        let records = decision.effects.compactMap { effect -> TransactionRecord? in
            if case .recordTransaction(let record) = effect { record } else { nil }
        }
        #expect(records.map(\.accountID) == (account.map { [$0] } ?? []))
        #expect(records.map(\.binding) == (path.map { [$0] } ?? []))
        #expect(decision.accountID == account)
    }
}
