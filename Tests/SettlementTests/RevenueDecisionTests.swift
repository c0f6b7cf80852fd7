import Foundation
import PipelineCore
import Testing

@testable import Settlement

/// The revenue ledger's entries, decided with each credit and take-back: the stores' own
/// price units, exact; refunds in steps as the coins' are; the catalog's price, estimated,
/// where the store reports none.
@Suite struct RevenueDecisionTests {
    typealias F = EngineFixture
    static let priced = "com.example.gems.pack"
    static let catalog = Catalog(
        products: F.catalog.products + [
            Product(
                productID: priced, kind: .consumable, grant: Grant(currency: "gems", amount: 10),
                prices: ["EUR": 109, "USD": 99])
        ])
    static let engine = SettlementEngine(catalog: catalog)

    static func revenue(_ decision: Decision) -> [RevenueEntry] {
        decision.effects.compactMap { if case .recordRevenue(let entry) = $0 { entry } else { nil } }
    }

    /// A purchase at Apple's `price` (milli-units of `currency`), `quantity` units.
    static func bought(_ id: String, milli: Int64, currency: String, quantity: Int = 1) -> VerifiedTransaction {
        var transaction = F.purchase(id, quantity: quantity)
        transaction.priceMicros = milli * 1000 * Int64(quantity)
        transaction.currency = currency
        transaction.country = "USA"
        return transaction
    }

    @Test(arguments: [
        ("USD", Int64(990), 3, Int64(297), Int64(207)),  // $0.99 × 3: $2.97, 70 % of it rounded down
        ("JPY", 120_000, 1, 120, 84),  // ¥120: no minor unit
        ("KWD", 1_250, 2, 2_500, 1_750),  // 1.250 KD × 2: three digits
    ])
    func applesMilliUnitPriceIsKeptExactlyInTheCurrencysMinorUnits(
        _ currency: String, _ milli: Int64, _ quantity: Int, _ gross: Int64, _ proceeds: Int64
    ) throws {
        let decision = try F.decide(
            .transactionVerified(
                Self.bought("t1", milli: milli, currency: currency, quantity: quantity), source: F.receipt()),
            engine: Self.engine)
        let entry = try #require(Self.revenue(decision).first)
        #expect(entry.kind == .purchase && entry.currency == currency && !entry.estimated)
        #expect(entry.gross == gross && entry.proceeds == proceeds && entry.commissionBasisPoints == 3000)
        #expect(entry.country == "USA" && entry.accountID == "a1" && entry.productID == F.coins)
    }

    /// `t1` bought for $0.99 × 5, credited to a1, as the store reads it back.
    static func credited(quantity: Int = 5, engine: SettlementEngine = engine) throws -> (
        KnownTransaction, RevenueEntry
    ) {
        let decision = try F.decide(
            .transactionVerified(bought("t1", milli: 990, currency: "USD", quantity: quantity), source: F.receipt()),
            engine: engine)
        let paid = try #require(revenue(decision).first)
        var known = F.known("t1", purchase: Money(currency: "coins", amount: 100 * quantity), quantity: quantity)
        known.add(revenue: paid)
        return (known, paid)
    }

    @Test func aRefundOfTwoOfFiveUnitsGivesBackTwoFifthsExactly() throws {
        let (known, paid) = try Self.credited()
        #expect(paid.gross == 495 && paid.proceeds == 346)
        var refund = F.purchase("t1", quantity: 5, cancelled: F.t0)
        refund.refundedQuantity = 2
        let decision = try F.decide(
            .takenBack(refund, kind: .refund, cause: F.notice()),
            SettlementState(known: known, accounts: ["a1": AccountState(exists: true, balances: ["coins": 500])]),
            engine: Self.engine)
        let entries = Self.revenue(decision)
        #expect(entries.map(\.gross) == [-198] && entries.map(\.proceeds) == [-138])
        #expect(entries.map(\.kind) == [.refund] && entries.map(\.step) == [1])
    }

    @Test func aProratedRefundThenTheRestGiveBackExactlyWhatWasPaid() throws {
        var (known, paid) = try Self.credited(quantity: 1)
        #expect(paid.gross == 99 && paid.proceeds == 69)
        let state = { (known: KnownTransaction) in
            SettlementState(known: known, accounts: ["a1": AccountState(exists: true, balances: ["coins": 100])])
        }
        // 40 % refunded, prorated
        var prorated = F.purchase("t1", cancelled: F.t0, share: 40_000)
        var decision = try F.decide(
            .takenBack(prorated, kind: .refund, cause: F.notice("n1")), state(known), engine: Self.engine)
        let first = Self.revenue(decision)
        #expect(first.map(\.gross) == [-39] && first.map(\.proceeds) == [-27])
        // The same notice again gives back nothing more
        for entry in first { known.add(revenue: entry) }
        known.add(.refund, Money(currency: "coins", amount: -40))
        decision = try F.decide(
            .takenBack(prorated, kind: .refund, cause: F.notice("n1")), state(known), engine: Self.engine)
        #expect(Self.revenue(decision) == [])
        // Then all of it: the rest, so that the ledger nets to zero
        prorated.revocationPercentage = nil
        decision = try F.decide(
            .takenBack(prorated, kind: .refund, cause: F.notice("n2")), state(known), engine: Self.engine)
        let rest = Self.revenue(decision)
        #expect(rest.map(\.gross) == [-60] && rest.map(\.proceeds) == [-42] && rest.map(\.step) == [2])
        #expect(paid.gross + first[0].gross + rest[0].gross == 0)
        #expect(paid.proceeds + first[0].proceeds + rest[0].proceeds == 0)
    }

    @Test func aReversalRestoresWhatTheRefundGaveBack() throws {
        var (known, _) = try Self.credited(quantity: 1)
        let refund = F.purchase("t1", cancelled: F.t0)
        let taken = try F.decide(
            .takenBack(refund, kind: .refund, cause: F.notice()),
            SettlementState(known: known, accounts: ["a1": AccountState(exists: true, balances: ["coins": 100])]),
            engine: Self.engine)
        for entry in Self.revenue(taken) { known.add(revenue: entry) }
        known.add(.refund, Money(currency: "coins", amount: -100))
        known.state = .refunded
        let reversed = try F.decide(
            .refundReversed(refund, cause: F.notice("n2")),
            SettlementState(known: known, accounts: ["a1": AccountState(exists: true)]), engine: Self.engine)
        #expect(Self.revenue(reversed).map(\.gross) == [99] && Self.revenue(reversed).map(\.kind) == [.reversal])
    }

    @Test func withoutTheStoresPriceTheCatalogsIsEstimated_andWithoutEitherNothingIsWritten() throws {
        let estimated = try F.decide(
            .transactionVerified(F.purchase("t2", product: Self.priced, quantity: 2), source: F.receipt()),
            engine: Self.engine)
        let entry = try #require(Self.revenue(estimated).first)
        #expect(entry.estimated && entry.currency == "USD" && entry.gross == 198 && entry.country == nil)
        let unpriced = try F.decide(.transactionVerified(F.purchase("t3"), source: F.receipt()), engine: Self.engine)
        #expect(Self.revenue(unpriced) == [])
    }

    @Test func aFamilyMembersAccessIsNobodysPayment() throws {
        var shared = Self.bought("f1", milli: 4990, currency: "USD")
        shared.productID = F.vip
        shared.ownershipType = "FAMILY_SHARED"
        let decision = try F.decide(.transactionVerified(shared, source: F.receipt()), engine: Self.engine)
        #expect(decision.outcome == TransactionOutcome.credited && Self.revenue(decision) == [])
    }

    @Test func aSmallBusinessAndASubscriptionsSecondYearPayTheReducedRate() throws {
        // A catalog that says the developer is in Apple's small-business program: Apple's sales
        // pay 15 %, another store's the standard 30 %
        var smallCatalog = Self.catalog
        smallCatalog.commission = CatalogCommission(smallBusinessStores: ["apple"])
        let small = SettlementEngine(catalog: smallCatalog)
        let (_, paid) = try Self.credited(quantity: 1, engine: small)
        #expect(paid.commissionBasisPoints == 1500 && paid.proceeds == 84)
        #expect(small.commission.rate(store: "google", subscriptionSince: nil, periodStarts: nil) == 3000)
        #expect(
            CommissionRates(CatalogCommission(standardBasisPoints: 2000, reducedBasisPoints: 1000)).rate(
                store: "apple", subscriptionSince: nil, periodStarts: nil) == 2000)

        // A renewal 400 days after the subscription began
        var first = F.knownVIP(account: "a1")
        first.purchaseDate = F.t0
        var renewal = Self.bought("s9", milli: 4990, currency: "USD")
        renewal.productID = F.vip
        renewal.originalTransactionID = "s1"
        renewal.purchaseDate = F.at(days: 400)
        renewal.expiresDate = F.at(days: 430)
        let decision = try F.decide(
            .transactionVerified(renewal, source: .notification(F.notice())),
            SettlementState(bound: first, accounts: ["a1": F.holder(vipUntil: F.at(days: 400))]), now: F.at(days: 401),
            engine: Self.engine)
        let entry = try #require(Self.revenue(decision).first)
        #expect(entry.kind == .renewal && entry.commissionBasisPoints == 1500 && entry.gross == 499)
    }

    @Test func currencyUnitsFollowISO4217() {
        #expect(CurrencyUnits.exponent(of: "USD") == 2 && CurrencyUnits.exponent(of: "JPY") == 0)
        #expect(CurrencyUnits.exponent(of: "KWD") == 3 && CurrencyUnits.exponent(of: "CLF") == 4)
        #expect(CurrencyUnits.minorUnits(micros: 990_000, currency: "USD") == 99)
        #expect(CurrencyUnits.minorUnits(micros: 1_005_000, currency: "JPY") == 1)
        #expect(CurrencyUnits.minorUnits(micros: 1_500_000, currency: "JPY") == 2, "half away from zero")
        #expect(CurrencyUnits.minorUnits(micros: -1_500_000, currency: "JPY") == -2)
        #expect(CurrencyUnits.micros(minorUnits: 600, currency: "CNY") == 6_000_000)
        #expect(CommissionRates.proceeds(of: 999, basisPoints: 3000) == 699)
        #expect(CommissionRates.proceeds(of: -999, basisPoints: 3000) == -699)
    }
}
