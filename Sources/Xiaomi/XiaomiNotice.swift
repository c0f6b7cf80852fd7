import Foundation
import StorePlugins

/// Xiaomi's payment notice (订单支付结果通知): a `GET` to our route with the order's
/// parameters and Xiaomi's `signature` over them in the query string. Xiaomi sends it again
/// every minute ten times, then hourly, until it is answered `{"errcode":200}`.
///
/// The signature, keyed with this app's `AppSecret`, is checked first (in constant time), so
/// that a forged notice is a 401 whatever else it says; then the parameters. What it says is
/// believed only as far as Xiaomi's order query confirms it (``XiaomiVerifier``).
public enum XiaomiNotice {
    /// The member errors name: `xiaomi_notice.payFee`.
    static let member = "xiaomi_notice"

    /// The order a notice states, when `query` is this app's signed notice.
    /// - Throws: ``StoreInputError``: 401 for a notice not signed by this app (another app's,
    ///   or forged), 400 for an unreadable query or a parameter at fault.
    public static func read(query: String, appID: String, signature: XiaomiSignature) throws(StoreInputError)
        -> XiaomiOrderInfo
    {
        let parameters = try Self.parameters(query)
        guard parameters["appId"] == appID else {
            throw StoreInputError(
                status: 401, code: "unknown_app", message: "the notice is not for Xiaomi app \(appID)",
                member: "\(member).appId")
        }
        guard let signed = parameters["signature"], signature.isValid(signed, of: parameters) else {
            throw .unauthorized("the notice's signature does not hold with this app's AppSecret")
        }
        return try XiaomiOrderInfo(parameters: parameters, member: member)
    }

    /// The parameters of a query string, decoded (`%XX`, and `+` for a space as Xiaomi's Java
    /// encodes it). A name given twice is refused: which value was signed would be a guess.
    static func parameters(_ query: String) throws(StoreInputError) -> [String: String] {
        guard !query.isEmpty else { throw .invalid("missing_field", "the notice has no parameters", member: member) }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count == 2 ? parts[1] : "") else {
                throw .invalid("invalid_query", "the notice's query string is not URL-encoded text", member: member)
            }
            guard parameters.updateValue(value, forKey: name) == nil else {
                throw .invalid("invalid_query", "\(member).\(name) is given twice", member: "\(member).\(name)")
            }
        }
        return parameters
    }

    private static func decoded(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Xiaomi's `errcode` for a refusal: `1525` a signature that does not hold, `1515` another
    /// app's id, `1506`/`1516` a missing order or user id, `3515` anything else inconsistent;
    /// `200` for a notice stored (or known), which ends Xiaomi's resends.
    static func errcode(_ outcome: NotificationOutcome) -> Int {
        switch outcome {
        case .stored, .dropped, .acknowledged: 200
        case .refused(let status, let code, _, let field):
            switch (status, code, field) {
            case (401, "unknown_app", _): 1515
            case (401, _, _): 1525
            case (400, _, "\(member).cpOrderId"): 1506
            case (400, _, "\(member).uid"): 1516
            case (400, _, _): 3515
            default: status
            }
        }
    }
}

/// An order a backend posted as the `xiaomi` member of `POST /v1/receipts`, heard of from its
/// client (the SDK's payment callback):
///
/// ```json
/// {"app_id": "2882303761517239138", "cp_order_id": "ord_123", "uid": "100010", "order_id": "…"}
/// ```
///
/// `order_id` (Xiaomi's) is optional; when given, Xiaomi's answer must name it.
public struct XiaomiOrder: Sendable, Hashable {
    public var appID: String
    public var cpOrderID: String
    public var uid: String
    public var orderID: String?

    public init(appID: String, cpOrderID: String, uid: String, orderID: String? = nil) {
        self.appID = appID
        self.cpOrderID = cpOrderID
        self.uid = uid
        self.orderID = orderID
    }

    static let member = "xiaomi"
    static let members: Set<String> = ["app_id", "cp_order_id", "uid", "order_id"]

    /// Checks the member's value (JSON as `JSONSerialization` reads it).
    /// - Throws: ``StoreInputError`` naming `xiaomi.<member>`.
    public init(member value: Any) throws(StoreInputError) {
        let object = try StoreInput.object(value, member: Self.member, allowed: Self.members)
        self.init(
            appID: try StoreInput.string(object, "app_id", in: Self.member, maxLength: 64)!,
            cpOrderID: try StoreInput.string(object, "cp_order_id", in: Self.member, maxLength: 128)!,
            uid: try StoreInput.string(object, "uid", in: Self.member, maxLength: 128)!,
            orderID: try StoreInput.string(object, "order_id", in: Self.member, required: false, maxLength: 128))
    }

    /// The canonical JSON kept as the evidence's payload.
    public var payload: String {
        var members = ["app_id": appID, "cp_order_id": cpOrderID, "uid": uid]
        members["order_id"] = orderID
        return StoreInput.canonicalJSON(members)
    }

    /// The order a payload written by ``payload`` holds; nil for anything else.
    public init?(payload: String) {
        guard let m = StoreInput.members(payload), let app = m["app_id"], let cpOrder = m["cp_order_id"],
            let uid = m["uid"]
        else { return nil }
        self.init(appID: app, cpOrderID: cpOrder, uid: uid, orderID: m["order_id"])
    }
}
