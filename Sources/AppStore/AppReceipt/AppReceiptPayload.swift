import Foundation
import SwiftASN1

/// Reads a receipt's content, the ASN.1 SET of ``ReceiptAttribute``s, into an ``AppReceipt``.
///
/// Unknown fields are skipped, as Apple asks (it adds fields over time). A known field of the
/// wrong type is malformed; an empty date (1708, 1712 for products that never expire or were
/// never refunded) and a missing field (1705, 1706 in Xcode receipts) are nil.
enum AppReceiptPayload {
    /// Receipt field numbers.
    enum Field {
        static let environment = 0
        static let bundleID = 2
        static let appVersion = 3
        static let opaqueValue = 4
        static let sha1Hash = 5
        static let creationDate = 12
        static let inAppPurchase = 17
        static let originalAppVersion = 19
        static let expirationDate = 21
        static let quantity = 1701
        static let productID = 1702
        static let transactionID = 1703
        static let purchaseDate = 1704
        static let originalTransactionID = 1705
        static let originalPurchaseDate = 1706
        static let expiresDate = 1708
        static let webOrderLineItemID = 1711
        static let cancellationDate = 1712
    }

    /// Decodes the attribute SET in `content` (BER, so Xcode's indefinite lengths are read too).
    /// - Throws: ``AppReceiptError/Reason/malformed`` naming the field at fault.
    static func decode(_ content: ArraySlice<UInt8>) throws(AppReceiptError) -> AppReceipt {
        let attributes: [ReceiptAttribute]
        do {
            attributes = try ReceiptAttribute.set(in: try BER.parse(content))
        } catch {
            throw .malformed("the signed content is not a receipt's attribute SET (\(error))")
        }
        var receipt = AppReceipt(environment: nil, bundleID: nil, creationDate: nil)
        for attribute in attributes {
            try field(attribute.type) {
                switch attribute.type {
                case Field.environment: receipt.rawEnvironment = try attribute.string()
                case Field.bundleID: receipt.bundleID = try attribute.string()
                case Field.appVersion: receipt.appVersion = try attribute.string()
                case Field.originalAppVersion: receipt.originalAppVersion = try attribute.string()
                case Field.creationDate: receipt.creationDate = try date(attribute)
                case Field.expirationDate: receipt.expirationDate = try date(attribute)
                case Field.inAppPurchase: receipt.inAppPurchases.append(try inAppPurchase(attribute.attributes()))
                default: break
                }
            }
        }
        return receipt
    }

    private static func inAppPurchase(_ attributes: [ReceiptAttribute]) throws(AppReceiptError)
        -> AppReceipt.InAppPurchase
    {
        var purchase = AppReceipt.InAppPurchase(productID: nil, quantity: nil, transactionID: nil)
        for attribute in attributes {
            try field(attribute.type) {
                switch attribute.type {
                case Field.quantity: purchase.quantity = try attribute.integer()
                case Field.productID: purchase.productID = try attribute.string()
                case Field.transactionID: purchase.transactionID = try attribute.string()
                case Field.originalTransactionID: purchase.originalTransactionID = try attribute.string()
                case Field.purchaseDate: purchase.purchaseDate = try date(attribute)
                case Field.originalPurchaseDate: purchase.originalPurchaseDate = try date(attribute)
                case Field.expiresDate: purchase.expiresDate = try date(attribute)
                case Field.cancellationDate: purchase.cancellationDate = try date(attribute)
                case Field.webOrderLineItemID: purchase.webOrderLineItemID = Int64(try attribute.integer())
                default: break
                }
            }
        }
        return purchase
    }

    /// Runs `read`, turning any failure into a malformed error naming `type`.
    private static func field(_ type: Int, _ read: () throws -> Void) throws(AppReceiptError) {
        do {
            try read()
        } catch let error as AppReceiptError {
            throw error
        } catch {
            throw .malformed("field \(type) is not of its documented type (\(error))")
        }
    }

    private static func date(_ attribute: ReceiptAttribute) throws -> Date? {
        switch try attribute.date() {
        case .absent: return nil
        case .date(let date): return date
        case .unreadable(let text):
            throw AppReceiptError.malformed("field \(attribute.type) is not an RFC 3339 date: '\(text.prefix(40))'")
        }
    }
}
