import Amazon
import Foundation
import Xiaomi

/// Purchases the stores that keep state (Xiaomi's orders, Amazon's receipts) hold, as lines of
/// JSON a lab writes before it starts the stub store (`iap-lab stub-store --orders FILE`): a
/// stub killed and started again holds them again, as the real store would.
public enum StubOrders {
    /// The line of a Xiaomi payment for our order `cpOrderID`.
    public static func xiaomi(cpOrderID: String, uid: String, productCode: String, payFee: Int64, orderID: String)
        -> String
    {
        line([
            "store": "xiaomi", "cp_order_id": cpOrderID, "uid": uid, "product_code": productCode,
            "pay_fee": payFee, "order_id": orderID,
        ])
    }

    /// The line of an Amazon receipt of `userID`.
    public static func amazon(userID: String, receiptID: String, productID: String) -> String {
        line(["store": "amazon", "user_id": userID, "receipt_id": receiptID, "product_id": productID])
    }

    private static func line(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Why a line of an orders file is not one.
    public struct Malformed: Error, CustomStringConvertible {
        public var line: Int
        public var description: String { "line \(line) is not a Xiaomi or Amazon purchase of the orders file" }
    }
}

extension StubAppStore {
    /// Registers every purchase of `text` (lines written by ``StubOrders``); how many.
    /// - Throws: ``StubOrders/Malformed`` naming the first line that is not one.
    @discardableResult
    public func load(orders text: String) throws -> Int {
        var count = 0
        for (number, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                throw StubOrders.Malformed(line: number + 1)
            }
            switch object["store"] as? String {
            case "xiaomi":
                guard let cpOrder = object["cp_order_id"] as? String, let uid = object["uid"] as? String,
                    let product = object["product_code"] as? String, let fee = object["pay_fee"] as? Int64,
                    let order = object["order_id"] as? String
                else { throw StubOrders.Malformed(line: number + 1) }
                xiaomi.pay(cpOrderID: cpOrder, uid: uid, productCode: product, payFee: fee, orderID: order)
            case "amazon":
                guard let user = object["user_id"] as? String, let receipt = object["receipt_id"] as? String,
                    let product = object["product_id"] as? String
                else { throw StubOrders.Malformed(line: number + 1) }
                amazon.register(
                    AmazonReceipt(receiptID: receipt, productID: product, productType: .consumable), userID: user)
            default:
                throw StubOrders.Malformed(line: number + 1)
            }
            count += 1
        }
        return count
    }
}
