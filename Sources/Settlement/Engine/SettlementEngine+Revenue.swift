import Foundation
import PipelineCore

// MARK: - The revenue ledger: what was paid, and what take-backs gave back

extension SettlementEngine {
    /// The revenue entry of a credited transaction: the store's price when it reported one
    /// (``VerifiedTransaction/priceMicros``), else the catalog's (`prices`, USD first; marked
    /// estimated); nil when neither says, or for a family member's access, which nobody paid.
    func revenue(
        of transaction: VerifiedTransaction, product: Product, accountID: String, cause: Cause, renewal: Bool,
        subscriptionSince first: Date?
    ) -> RevenueEntry? {
        guard !transaction.isFamilyShared, let (currency, gross, estimated) = Self.price(of: transaction, product)
        else { return nil }
        let subscription = product.kind == .autoRenewable
        let rate = commission.rate(
            store: cause.store, subscriptionSince: renewal ? first : nil, periodStarts: transaction.purchaseDate)
        return RevenueEntry(
            app: cause.app, store: cause.store, accountID: accountID, transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID, productID: product.productID,
            kind: renewal ? .renewal : .purchase, currency: currency, gross: gross,
            proceeds: CommissionRates.proceeds(of: gross, basisPoints: rate), commissionBasisPoints: rate,
            country: transaction.country, estimated: estimated, subscription: subscription,
            receiptID: cause.receiptID, notificationID: cause.notificationID,
            tax: estimated ? nil : Self.tax(of: transaction, currency: currency, gross: gross),
            periodEnds: subscription ? transaction.expiresDate : nil,
            monthlyRecurring: subscription
                ? RevenueEntry.monthly(gross, from: transaction.purchaseDate, to: transaction.expiresDate) : nil)
    }

    /// What a transaction cost: the store's price in whole minor units, or the catalog's.
    static func price(of transaction: VerifiedTransaction, _ product: Product) -> (String, Int64, Bool)? {
        if let micros = transaction.priceMicros, micros >= 0, let currency = transaction.currency,
            CurrencyUnits.isCode(currency),
            let minor = CurrencyUnits.minorUnits(micros: micros, currency: currency)
        {
            return (currency, minor, false)
        }
        guard let prices = product.prices, let currency = prices["USD"] != nil ? "USD" : prices.keys.sorted().first,
            let unit = prices[currency]
        else { return nil }
        let (total, overflow) = unit.multipliedReportingOverflow(by: Int64(transaction.quantity))
        return overflow ? nil : (currency, total, true)
    }

    /// The tax the store reported in a price, in minor units: nil where it did not, or where it
    /// would be more than the price.
    static func tax(of transaction: VerifiedTransaction, currency: String, gross: Int64) -> Int64? {
        guard let micros = transaction.taxMicros, micros >= 0,
            let minor = CurrencyUnits.minorUnits(micros: micros, currency: currency), minor <= gross
        else { return nil }
        return minor
    }

    /// `part` × `share` / `whole`, rounded toward zero: the tax in a take-back's share of a
    /// payment (`part` the payment's tax, `whole` its gross, `share` what the take-back reaches).
    static func share(_ part: Int64, of whole: Int64, _ share: Int64) -> Int64 {
        guard whole > 0 else { return 0 }
        return (part / whole) * share + (part % whole) * share / whole
    }

    /// The revenue a take-back gives back: the share of the payment the store's refund now
    /// reaches, less what earlier steps gave back (the same shares as the coins': Apple's
    /// percentage, Google's units, all of it by default); nil when it reaches nothing new.
    static func revenueGivenBack(
        _ known: KnownTransaction, by transaction: VerifiedTransaction, kind: TakeBackKind, cause: Cause
    ) -> RevenueEntry? {
        guard let revenue = known.revenue else { return nil }
        let paid = revenue.paid
        let reached = Int64(refunded(of: Int(paid.gross), by: transaction))
        let step = reached - revenue.givenBack
        guard step > 0 else { return nil }
        // Proceeds given back so far, as the share reached: the payment's own when all of it is.
        let proceedsReached =
            reached == paid.gross
            ? paid.proceeds : CommissionRates.proceeds(of: reached, basisPoints: paid.commissionBasisPoints)
        var entry = paid
        entry.kind = kind == .refund ? .refund : .revocation
        entry.gross = -step
        entry.proceeds = -(proceedsReached - revenue.proceedsGivenBack)
        entry.tax = paid.tax.map { -(share($0, of: paid.gross, reached) - revenue.taxGivenBack) }
        entry.receiptID = cause.receiptID
        entry.notificationID = cause.notificationID
        entry.step = revenue.steps + 1
        return entry
    }

    /// A refund the store reversed restores what take-backs gave back.
    static func revenueRestored(_ known: KnownTransaction, cause: Cause) -> RevenueEntry? {
        guard let revenue = known.revenue, revenue.givenBack > 0 else { return nil }
        var entry = revenue.paid
        entry.kind = .reversal
        entry.gross = revenue.givenBack
        entry.proceeds = revenue.proceedsGivenBack
        entry.tax = revenue.paid.tax == nil ? nil : revenue.taxGivenBack
        entry.receiptID = cause.receiptID
        entry.notificationID = cause.notificationID
        entry.step = 0
        return entry
    }
}
