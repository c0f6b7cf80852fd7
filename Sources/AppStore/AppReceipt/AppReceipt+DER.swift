import Foundation
import SwiftASN1

extension AppReceipt {
    /// This receipt as Apple encodes a receipt's content: a DER SET of attributes, dates as
    /// IA5Strings, texts as UTF8Strings. What a PKCS #7 container signs; the stub store uses it
    /// to mint receipts the local verifier reads like Apple's.
    /// - Parameter opaqueValue: Field 4, the random bytes Apple hashes with the device id (field 5).
    /// - Returns: The DER bytes.
    public func derEncodedPayload(opaqueValue: [UInt8] = []) throws -> [UInt8] {
        typealias Field = AppReceiptPayload.Field
        var attributes: [ReceiptAttribute] = []
        func add(_ type: Int, _ value: (any DERSerializable)?) throws {
            if let value { attributes.append(try ReceiptAttribute(type: type, encoding: value)) }
        }
        try add(Field.environment, rawEnvironment.map { ASN1UTF8String($0) })
        try add(Field.bundleID, bundleID.map { ASN1UTF8String($0) })
        try add(Field.appVersion, appVersion.map { ASN1UTF8String($0) })
        try add(Field.originalAppVersion, originalAppVersion.map { ASN1UTF8String($0) })
        try add(Field.opaqueValue, ASN1OctetString(contentBytes: opaqueValue[...]))
        try add(Field.creationDate, try creationDate.map(Self.ia5))
        try add(Field.expirationDate, try expirationDate.map(Self.ia5))
        for purchase in inAppPurchases {
            attributes.append(
                ReceiptAttribute(type: Field.inAppPurchase, value: try purchase.derEncodedAttributes()[...]))
        }
        var serializer = DER.Serializer()
        try serializer.serializeSetOf(attributes)
        return serializer.serializedBytes
    }

    static func ia5(_ date: Date) throws -> ASN1IA5String {
        try ASN1IA5String(ReceiptDate.format(date))
    }
}

extension AppReceipt.InAppPurchase {
    /// The SET field 17 holds; expiry and cancellation are empty IA5Strings when unset, as Apple writes them.
    func derEncodedAttributes() throws -> [UInt8] {
        typealias Field = AppReceiptPayload.Field
        var attributes: [ReceiptAttribute] = []
        func add(_ type: Int, _ value: (any DERSerializable)?) throws {
            if let value { attributes.append(try ReceiptAttribute(type: type, encoding: value)) }
        }
        try add(Field.quantity, quantity)
        try add(Field.productID, productID.map { ASN1UTF8String($0) })
        try add(Field.transactionID, transactionID.map { ASN1UTF8String($0) })
        try add(Field.originalTransactionID, originalTransactionID.map { ASN1UTF8String($0) })
        try add(Field.purchaseDate, try purchaseDate.map(AppReceipt.ia5))
        try add(Field.originalPurchaseDate, try originalPurchaseDate.map(AppReceipt.ia5))
        try add(Field.expiresDate, try expiresDate.map(AppReceipt.ia5) ?? ASN1IA5String(""))
        try add(Field.cancellationDate, try cancellationDate.map(AppReceipt.ia5) ?? ASN1IA5String(""))
        try add(Field.webOrderLineItemID, webOrderLineItemID.map(Int.init) ?? 0)
        var serializer = DER.Serializer()
        try serializer.serializeSetOf(attributes)
        return serializer.serializedBytes
    }
}
