import Foundation
import Testing

@testable import Huawei

/// Huawei's `price` in `InAppPurchaseData`: "the actual price of a product multiplied by 100"
/// (HMS IAP's reference: "if the value of this parameter is 501, the actual product price is
/// 5.01"), with `currency` (ISO 4217) and `country` (ISO 3166).
@Suite struct HuaweiPriceTests {
    /// A purchase's data as published in a Huawei Developers article ("PHP Signature
    /// Verification for HUAWEI IAP"; ids elided there with x as here): CNY 1.00.
    static let published = """
        {"autoRenewing":false,"orderId":"201912250949586652ebf220c1.10xxxx75","packageName":"com.example.xxxxxxexample_netease.huawei","applicationId":10xxxx75,"kind":0,"productId":"3","productName":"test33333","purchaseTime":1577238608000,"purchaseTimeMillis":1577238608000,"purchaseState":0,"developerPayload":"09815772385983110000000191996123","purchaseToken":"0000016f3abf3a78a4ef7b217523ea5a346825ab632c152b864c2e5251433c9d599c5986ab8c89b1.1.10xxxx75","consumptionState":0,"acknowledged":0,"currency":"CNY","price":100,"country":"CN","payOrderId":"Aed0f1fbd9929f803d9d23b523b14575","payType":"4"}
        """

    @Test func thePublishedPurchaseIsOneYuan() throws {
        // Its `applicationId` is elided as 10xxxx75, which is no JSON: read with the id quoted.
        let data = try #require(
            HuaweiPurchaseData(json: Self.published.replacingOccurrences(of: ":10xxxx75,", with: ":\"10xxxx75\",")))
        #expect(data.price == 100 && data.currency == "CNY" && data.country == "CN")
        #expect(data.priceMicros == 1_000_000)
    }

    @Test func aPriceIsHundredthsWhateverTheCurrencysMinorUnit() throws {
        for (price, currency, micros) in [
            (501, "EUR", 5_010_000), (80_000, "JPY", 800_000_000), (3496, "CNY", 34_960_000),
        ] as [(Int, String, Int64)] {
            let data = try #require(HuaweiPurchaseData(json: #"{"price": \#(price), "currency": "\#(currency)"}"#))
            #expect(data.priceMicros == micros, "\(price) \(currency)")
        }
        // Numbers written as strings are read too; a negative or absurd price is no price.
        #expect(HuaweiPurchaseData(json: #"{"price": "199"}"#)?.priceMicros == 1_990_000)
        #expect(HuaweiPurchaseData(json: #"{"price": -5}"#)?.priceMicros == nil)
        #expect(HuaweiPurchaseData(json: #"{"price": 9223372036854775807}"#)?.priceMicros == nil)
    }
}
