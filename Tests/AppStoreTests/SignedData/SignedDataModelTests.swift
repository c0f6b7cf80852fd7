import AppStore
import Foundation
import PipelineCore
import Testing

/// The payload models against Apple's decoded examples (`Vectors/models`), and their round trips.
@Suite("Signed data models")
struct SignedDataModelTests {
    typealias F = SignedDataFixtures

    private func decode<T: Decodable>(_ type: T.Type, _ path: String) throws -> T {
        try AppStoreJSON.makeDecoder().decode(T.self, from: Data(try F.bytes(path)))
    }

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try AppStoreJSON.makeDecoder().decode(T.self, from: AppStoreJSON.makeEncoder().encode(value))
    }

    @Test func transaction_decodesApplesExample() throws {
        let transaction = try decode(JWSTransactionDecodedPayload.self, "models/signedTransaction.json")
        #expect(transaction.transactionId == "23456")
        #expect(transaction.originalTransactionId == "12345")
        #expect(transaction.webOrderLineItemId == "34343")
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.productId == "com.example.product")
        #expect(transaction.subscriptionGroupIdentifier == "55555")
        #expect(transaction.purchaseDate == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(transaction.originalPurchaseDate == Date(timeIntervalSince1970: 1_698_148_800))
        #expect(transaction.expiresDate == Date(timeIntervalSince1970: 1_698_149_000))
        #expect(transaction.quantity == 1)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.inAppOwnershipType == .purchased)
        #expect(transaction.revocationReason == .refundedDueToIssue)
        #expect(transaction.revocationDate == Date(timeIntervalSince1970: 1_698_148_950))
        #expect(transaction.isUpgraded == true)
        #expect(transaction.offerType == .introductoryOffer)
        #expect(transaction.offerIdentifier == "abc.123")
        #expect(transaction.environment == .localTesting)
        #expect(transaction.transactionReason == .purchase)
        #expect(transaction.storefront == "USA")
        #expect(transaction.storefrontId == "143441")
        #expect(transaction.price == 10990)
        #expect(transaction.currency == "USD")
        #expect(transaction.offerDiscountType == .payAsYouGo)
        #expect(transaction.appTransactionId == "71134")
        #expect(transaction.offerPeriod == "P1Y")
        #expect(try roundTrip(transaction) == transaction)
    }

    @Test func renewalInfo_decodesApplesExample() throws {
        let renewalInfo = try decode(JWSRenewalInfoDecodedPayload.self, "models/signedRenewalInfo.json")
        #expect(renewalInfo.expirationIntent == .customerCancelled)
        #expect(renewalInfo.originalTransactionId == "12345")
        #expect(renewalInfo.autoRenewProductId == "com.example.product.2")
        #expect(renewalInfo.productId == "com.example.product")
        #expect(renewalInfo.autoRenewStatus == .on)
        #expect(renewalInfo.isInBillingRetryPeriod == true)
        #expect(renewalInfo.priceIncreaseStatus == .customerHasNotResponded)
        #expect(renewalInfo.gracePeriodExpiresDate == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(renewalInfo.offerType == .promotionalOffer)
        #expect(renewalInfo.signedDate == Date(timeIntervalSince1970: 1_698_148_800))
        #expect(renewalInfo.environment == .localTesting)
        #expect(renewalInfo.recentSubscriptionStartDate == Date(timeIntervalSince1970: 1_698_148_800))
        #expect(renewalInfo.renewalDate == Date(timeIntervalSince1970: 1_698_148_850))
        #expect(renewalInfo.renewalPrice == 9990)
        #expect(renewalInfo.offerDiscountType == .payAsYouGo)
        #expect(renewalInfo.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(renewalInfo.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(try roundTrip(renewalInfo) == renewalInfo)
    }

    @Test func notification_decodesApplesExample() throws {
        let notification = try decode(ResponseBodyV2DecodedPayload.self, "models/signedNotification.json")
        #expect(notification.notificationType == .subscribed)
        #expect(notification.subtype == .initialBuy)
        #expect(notification.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(notification.version == "2.0")
        #expect(notification.signedDate == Date(timeIntervalSince1970: 1_698_148_900))
        let data = try #require(notification.data)
        #expect(data.environment == .localTesting)
        #expect(data.appAppleId == 41234)
        #expect(data.bundleId == "com.example")
        #expect(data.bundleVersion == "1.2.3")
        #expect(data.signedTransactionInfo == "signed_transaction_info_value")
        #expect(data.signedRenewalInfo == "signed_renewal_info_value")
        #expect(data.status == .active)
        #expect(notification.summary == nil)
        #expect(try roundTrip(notification) == notification)
    }

    @Test func summaryNotification_decodesApplesExample() throws {
        let notification = try decode(ResponseBodyV2DecodedPayload.self, "models/signedSummaryNotification.json")
        #expect(notification.notificationType == .renewalExtension)
        #expect(notification.subtype == .summary)
        let summary = try #require(notification.summary)
        #expect(summary.appAppleId == 41234)
        #expect(summary.bundleId == "com.example")
        #expect(summary.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(summary.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(summary.succeededCount == 5)
        #expect(summary.failedCount == 2)
        #expect(notification.data == nil)
    }

    @Test func unknownRawValues_surviveARoundTrip() throws {
        // Given values this code has no case for
        let json = #"{"type":"Future Product","environment":"Staging","revocationReason":7,"transactionReason":"GIFT"}"#
        let transaction = try AppStoreJSON.makeDecoder().decode(
            JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        // Then the typed views are nil and the raw values are kept
        #expect(transaction.type == nil)
        #expect(transaction.rawType == "Future Product")
        #expect(transaction.environment == nil)
        #expect(transaction.rawEnvironment == "Staging")
        #expect(transaction.revocationReason == nil)
        #expect(transaction.rawRevocationReason == 7)
        #expect(transaction.rawTransactionReason == "GIFT")
        #expect(try roundTrip(transaction) == transaction)
    }

    @Test func dates_encodeAsWholeMilliseconds_andAbsentFieldsAreLeftOut() throws {
        let transaction = JWSTransactionDecodedPayload(
            transactionId: "1", signedDate: Date(timeIntervalSince1970: 1_698_148_900.123))
        let json = String(decoding: try AppStoreJSON.makeEncoder().encode(transaction), as: UTF8.self)
        #expect(json.contains(#""signedDate":1698148900123"#))
        #expect(!json.contains("1698148900123."))
        #expect(!json.contains("bundleId"))
        #expect(!json.contains("null"))
    }

    @Test func typedSetters_writeTheRawValues() {
        var transaction = JWSTransactionDecodedPayload()
        transaction.type = .nonConsumable
        transaction.environment = .production
        transaction.offerType = .winBackOffer
        #expect(transaction.rawType == "Non-Consumable")
        #expect(transaction.rawEnvironment == "Production")
        #expect(transaction.rawOfferType == 4)
        transaction.type = nil
        #expect(transaction.rawType == nil)
    }

    @Test func base64URL_roundTripsAndIsStrict() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == bytes)
        }
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
        #expect(Base64URL.decode("/+8") == nil)
        #expect(Base64URL.decode("AA==") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AA AA") == nil)
    }
}
