import AppStore
import Foundation

/// The stub's StoreKit 2 side: a certificate authority it generates at start (leaf and
/// intermediate carry Apple's OIDs) and the signed transactions and App Store Server
/// Notifications V2 it issues with it. Pipelines under test trust ``rootDER``.
public final class StubStoreKit: Sendable {
    public let authority: TestCertificateAuthority
    public let bundleID: String
    public let environment: AppStoreEnvironment
    /// Every notification ``send(_:to:)`` delivered or tried to: Get Notification History's.
    public let history = StubNotificationHistory()

    /// - Parameters:
    ///   - environment: what the signed data says; verifiers configured for another refuse it.
    public init(bundleID: String, environment: AppStoreEnvironment = .sandbox, now: Date = Date()) throws {
        self.authority = try TestCertificateAuthority(
            notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(365 * 86_400))
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The root to configure as trusted (DER).
    public var rootDER: [UInt8] { authority.rootDER }

    /// A signed transaction as StoreKit 2 hands it to the app (``bundleID``, or `app`).
    public func signTransaction(_ transaction: StubTransaction, signedAt: Date = Date(), app: String? = nil) -> String {
        authority.signer.signTransaction(payload(transaction, signedAt: signedAt, app: app ?? bundleID))
    }

    /// A signed App Store Server Notification V2 with its transaction and renewal info,
    /// about ``bundleID`` or another app of the stub's (`app`).
    public func signNotification(
        type: ResponseBodyV2DecodedPayload.NotificationType, subtype: ResponseBodyV2DecodedPayload.Subtype? = nil,
        transaction: StubTransaction?, gracePeriodExpiresDate: Date? = nil,
        uuid: String = UUID().uuidString.lowercased(),
        signedAt: Date = Date(), app: String? = nil
    ) -> String {
        var data = ResponseBodyV2DecodedPayload.NotificationData(
            environment: environment, bundleId: app ?? bundleID, bundleVersion: "1")
        if let transaction {
            data.signedTransactionInfo = authority.signer.signTransaction(
                payload(transaction, signedAt: signedAt, app: app ?? bundleID))
            if transaction.type == .autoRenewableSubscription {
                data.signedRenewalInfo = authority.signer.signRenewalInfo(
                    JWSRenewalInfoDecodedPayload(
                        originalTransactionId: transaction.originalTransactionID ?? transaction.transactionID,
                        autoRenewProductId: transaction.productID, productId: transaction.productID,
                        gracePeriodExpiresDate: gracePeriodExpiresDate, signedDate: signedAt, environment: environment))
            }
        }
        return authority.signer.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: type, subtype: subtype, notificationUUID: uuid, data: data, version: "2.0",
                signedDate: signedAt))
    }

    private func payload(_ transaction: StubTransaction, signedAt: Date, app: String) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: transaction.originalTransactionID ?? transaction.transactionID,
            transactionId: transaction.transactionID, bundleId: app, productId: transaction.productID,
            purchaseDate: transaction.purchaseDate, originalPurchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate, quantity: transaction.quantity, type: transaction.type,
            appAccountToken: transaction.appAccountToken,
            inAppOwnershipType: transaction.familyShared ? .familyShared : .purchased, signedDate: signedAt,
            // An upgrade ends a subscription with a revocation date and no reason: not a refund.
            revocationReason: transaction.revocationDate == nil || transaction.isUpgraded
                ? nil : .refundedForOtherReason,
            revocationDate: transaction.revocationDate, isUpgraded: transaction.isUpgraded ? true : nil,
            offerType: transaction.offerType, offerIdentifier: transaction.offerIdentifier, environment: environment,
            storefront: transaction.storefront, transactionReason: .purchase, currency: transaction.currency,
            price: transaction.price)
    }
}

/// A purchase the stub signs: what StoreKit 2 would report for it.
public struct StubTransaction: Hashable, Sendable {
    public var transactionID: String
    public var originalTransactionID: String?
    public var productID: String
    public var quantity: Int
    public var type: JWSTransactionDecodedPayload.ProductType
    public var purchaseDate: Date
    public var expiresDate: Date?
    public var revocationDate: Date?
    public var appAccountToken: String?
    /// Ended by the customer's upgrade to another subscription of the group (`isUpgraded`).
    public var isUpgraded = false
    /// The offer it was bought with (`offerType`, `offerIdentifier`).
    public var offerType: JWSTransactionDecodedPayload.OfferType?
    public var offerIdentifier: String?
    /// A family member's access to another's purchase (`inAppOwnershipType` `FAMILY_SHARED`).
    public var familyShared = false
    /// What one unit cost, as Apple signs it: milli-units of `currency` (`price`), and where (`storefront`).
    public var price: Int64?
    public var currency: String?
    public var storefront = "USA"

    public init(
        transactionID: String = String(UInt64.random(in: 2_000_000_000_000_000...2_999_999_999_999_999)),
        originalTransactionID: String? = nil, productID: String, quantity: Int = 1,
        type: JWSTransactionDecodedPayload.ProductType = .consumable, purchaseDate: Date = Date(),
        expiresDate: Date? = nil, revocationDate: Date? = nil, appAccountToken: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.quantity = quantity
        self.type = type
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.appAccountToken = appAccountToken
    }
}
