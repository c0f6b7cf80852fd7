import Foundation
import GooglePlay
import Testing

/// The Orders API's `Money` as Google documents it: "`units`: the whole units of the amount";
/// "`nanos`: number of nano (10^-9) units … If `units` is positive, `nanos` must be positive or
/// zero … For example $-1.75 is represented as `units`=-1 and `nanos`=-750,000,000."
@Suite struct GooglePlayOrderTests {
    static func money(_ json: String) throws -> GooglePlayOrder.Money {
        try JSONDecoder().decode(GooglePlayOrder.Money.self, from: Data(json.utf8))
    }

    @Test func moneyIsMicrosOfItsUnitsAndNanos() throws {
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "-1", "nanos": -750000000}"#).micros == -1_750_000)
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "4", "nanos": 950000000}"#).micros == 4_950_000)
        #expect(try Self.money(#"{"currencyCode": "JPY", "units": "800"}"#).micros == 800_000_000)
        #expect(try Self.money(#"{"currencyCode": "EUR", "nanos": 10000000}"#).micros == 10_000)
        // Signs that disagree, nanos out of range, units that do not fit: no amount.
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "1", "nanos": -5}"#).micros == nil)
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "1", "nanos": 1000000000}"#).micros == nil)
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "9223372036854775807"}"#).micros == nil)
        #expect(try Self.money(#"{"currencyCode": "USD", "units": "lots"}"#).micros == nil)
    }

    @Test func anOrderReadsItsTotalAndTheBuyersCountry() throws {
        let json = """
            {"orderId": "GPA.3345-1234-5678-90123", "purchaseToken": "token", "state": "PROCESSED",
             "createTime": "2026-11-25T10:00:00Z", "lastEventTime": "2026-11-25T10:00:01Z",
             "buyerAddress": {"buyerCountry": "DE"},
             "total": {"currencyCode": "EUR", "units": "5", "nanos": 490000000},
             "tax": {"currencyCode": "EUR", "nanos": 880000000},
             "developerRevenueInBuyerCurrency": {"currencyCode": "EUR", "units": "3", "nanos": 220000000},
             "lineItems": [{"productId": "vip_monthly", "productTitle": "VIP",
               "total": {"currencyCode": "EUR", "units": "5", "nanos": 490000000},
               "subscriptionDetails": {"basePlanId": "monthly", "offerPhase": "BASE"}}],
             "salesChannel": "IN_APP"}
            """
        let order = try JSONDecoder().decode(GooglePlayOrder.self, from: Data(json.utf8))
        #expect(order.total?.micros == 5_490_000 && order.total?.currencyCode == "EUR")
        #expect(order.buyerAddress?.buyerCountry == "DE" && order.state == "PROCESSED")
        #expect(order.lineItems?.first?.subscriptionDetails?.offerPhase == "BASE")
    }
}
