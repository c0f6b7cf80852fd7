import Foundation
import PipelineCore
import StorePlugins

/// One paid order as Xiaomi states it: in a payment notice it pushes, or in its answer to an
/// order query. The same parameters in both, Xiaomi's names; `payFee` is in fen (0.01 Mi coin,
/// one fen of CNY), `payTime` is `yyyy-MM-dd HH:mm:ss` in Beijing time.
public struct XiaomiOrderInfo: Sendable, Hashable {
    public var appID: String
    /// Our order id, as the game passed it to Xiaomi's SDK.
    public var cpOrderID: String
    /// What the game passed through Xiaomi (`cpUserInfo`): the account id, by our convention.
    public var cpUserInfo: String?
    /// The player's Xiaomi id.
    public var uid: String
    /// Xiaomi's own order id: one per payment, the purchase's transaction id here.
    public var orderID: String
    /// `TRADE_SUCCESS` for a paid order; `WAIT_BUYER_PAY`, `REPEAT_PURCHASE` otherwise.
    public var orderStatus: String
    public var payFee: Int64
    public var productCode: String
    public var productCount: Int
    public var payTime: String
    /// `10` an ordinary order, `11` a direct top-up.
    public var orderConsumeType: String?

    public static let paid = "TRADE_SUCCESS"
    public static let unpaid = "WAIT_BUYER_PAY"

    public init(
        appID: String, cpOrderID: String, cpUserInfo: String? = nil, uid: String, orderID: String,
        orderStatus: String = paid, payFee: Int64, productCode: String, productCount: Int = 1, payTime: String,
        orderConsumeType: String? = nil
    ) {
        self.appID = appID
        self.cpOrderID = cpOrderID
        self.cpUserInfo = cpUserInfo
        self.uid = uid
        self.orderID = orderID
        self.orderStatus = orderStatus
        self.payFee = payFee
        self.productCode = productCode
        self.productCount = productCount
        self.payTime = payTime
        self.orderConsumeType = orderConsumeType
    }

    /// Xiaomi's parameters (values decoded), checked: each names what is wrong as `member.<name>`.
    /// - Throws: ``StoreInputError`` (400) naming the parameter at fault.
    public init(parameters p: [String: String], member: String) throws(StoreInputError) {
        func text(_ name: String, max: Int = 128) throws(StoreInputError) -> String {
            try Self.text(p, name, member: member, max: max)
        }
        let fee = try text("payFee", max: 18)
        guard let payFee = Int64(fee), payFee >= 0 else {
            throw .invalid(
                "invalid_field", "\(member).payFee must be a whole number of fen", member: "\(member).payFee")
        }
        let count = try text("productCount", max: 9)
        guard let productCount = Int(count), productCount >= 1 else {
            throw .invalid(
                "invalid_field", "\(member).productCount must be a whole number, 1 or more",
                member: "\(member).productCount")
        }
        let payTime = try text("payTime", max: 19)
        guard Self.date(payTime) != nil else {
            throw .invalid(
                "invalid_field", "\(member).payTime must be yyyy-MM-dd HH:mm:ss", member: "\(member).payTime")
        }
        let info = p["cpUserInfo"].flatMap { $0.isEmpty ? nil : $0 }
        if let info, info.utf8.count > 256 {
            throw .invalid(
                "invalid_field", "\(member).cpUserInfo is longer than 256 bytes", member: "\(member).cpUserInfo")
        }
        self.init(
            appID: try text("appId", max: 64), cpOrderID: try text("cpOrderId"), cpUserInfo: info,
            uid: try text("uid"), orderID: try text("orderId"), orderStatus: try text("orderStatus", max: 32),
            payFee: payFee, productCode: try text("productCode", max: 256), productCount: productCount,
            payTime: payTime, orderConsumeType: p["orderConsumeType"].flatMap { $0.isEmpty ? nil : $0 })
    }

    private static func text(_ p: [String: String], _ name: String, member: String, max: Int) throws(StoreInputError)
        -> String
    {
        guard let value = p[name], !value.isEmpty else {
            throw .invalid("missing_field", "\(member).\(name) is required", member: "\(member).\(name)")
        }
        // payTime carries one space; nothing Xiaomi sends here carries a control character.
        guard value.utf8.count <= max, value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw .invalid(
                "invalid_field", "\(member).\(name) must be 1-\(max) bytes without control characters",
                member: "\(member).\(name)")
        }
        return value
    }

    /// When it was paid: `payTime` read in Beijing time (UTC+8, Xiaomi's).
    public var paidAt: Date? { Self.date(payTime) }

    static func date(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard text.utf8.count == 19, parts.count == 6 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 8 * 3600)!
        let components = DateComponents(
            year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    // MARK: Evidence

    /// The canonical JSON kept as a notice's payload.
    public var payload: String {
        var members = [
            "app_id": appID, "cp_order_id": cpOrderID, "uid": uid, "order_id": orderID, "order_status": orderStatus,
            "pay_fee": String(payFee), "product_code": productCode, "product_count": String(productCount),
            "pay_time": payTime,
        ]
        members["cp_user_info"] = cpUserInfo
        members["order_consume_type"] = orderConsumeType
        return StoreInput.canonicalJSON(members)
    }

    /// The order a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let m = StoreInput.members(payload), let app = m["app_id"], let cpOrder = m["cp_order_id"],
            let uid = m["uid"], let order = m["order_id"], let status = m["order_status"],
            let fee = m["pay_fee"].flatMap({ Int64($0) }), let product = m["product_code"],
            let count = m["product_count"].flatMap({ Int($0) }), let time = m["pay_time"]
        else { return nil }
        self.init(
            appID: app, cpOrderID: cpOrder, cpUserInfo: m["cp_user_info"], uid: uid, orderID: order,
            orderStatus: status, payFee: fee, productCode: product, productCount: count, payTime: time,
            orderConsumeType: m["order_consume_type"])
    }

    /// Xiaomi's parameters for it (what the stub store sends and signs).
    public var parameters: [String: String] {
        var p = [
            "appId": appID, "cpOrderId": cpOrderID, "uid": uid, "orderId": orderID, "orderStatus": orderStatus,
            "payFee": String(payFee), "productCode": productCode, "productCount": String(productCount),
            "payTime": payTime,
        ]
        p["cpUserInfo"] = cpUserInfo
        p["orderConsumeType"] = orderConsumeType
        return p
    }
}
