import Foundation
import HTTPClient
import PipelineCore
import StorePlugins

/// A client of Xiaomi's order query (主动查询订单支付状态, `queryOrder.do`), or of any server
/// that speaks it (the stub store): `GET` with `appId`, `cpOrderId`, `uid` and our signature;
/// Xiaomi answers the order's parameters, signed with the same `AppSecret`, or `{"errcode"}`.
///
/// Every query is booked in the app's call budget every process shares (``StoreCalls``).
public struct XiaomiClient: Sendable {
    public let settings: XiaomiSettings
    let calls: StoreCalls

    public init(
        settings: XiaomiSettings, httpClient: CurlHTTPClient, budgets: any CallBudgetKeeper = LocalCallBudgetKeeper(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            settings: settings,
            calls: StoreCalls(store: "Xiaomi", http: httpClient, budgets: budgets, maxWait: settings.maxWait, now: now))
    }

    init(settings: XiaomiSettings, calls: StoreCalls) {
        self.settings = settings
        self.calls = calls
    }

    /// This client with its queries booked in the app's budget for notices.
    var readingNotices: XiaomiClient { XiaomiClient(settings: settings, calls: calls.readingNotices) }

    /// The budget its queries are booked in: `xiaomi/<appId>`, or a fifth of it for notices.
    public var budget: CallBudget { calls.budget("xiaomi/\(settings.appID)", perSecond: settings.callsPerSecond) }

    /// What Xiaomi says of our order `cpOrderID`, paid by `uid`, with whether its signature holds.
    public func queryOrder(cpOrderID: String, uid: String) async throws(StoreCallError) -> XiaomiAnswer {
        let signature = XiaomiSignature(secret: settings.appSecret)
        var query = ["appId": settings.appID, "cpOrderId": cpOrderID, "uid": uid]
        query["signature"] = signature.sign(query)
        let url =
            settings.queryURL + "?"
            + query.keys.sorted().map { "\($0)=\(Self.encoded(query[$0]!))" }
            .joined(separator: "&")
        let response = try await calls.send(
            HTTPRequest(
                method: .get, url: url, headers: [(name: "Accept", value: "application/json")], timeout: calls.timeout),
            in: budget, call: "queryOrder")
        guard response.isSuccess else {
            throw StoreCallError(
                StoreCallError.code(status: response.status, notFound: []), store: "Xiaomi", call: "queryOrder",
                message: "HTTP \(response.status)", status: response.status,
                retryAfter: StoreCallError.retryAfter(response.header("Retry-After")))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: response.bodyData)) as? [String: Any] else {
            throw Self.error(.malformedResponse, "the answer is not a JSON object")
        }
        if let code = object["errcode"] {
            throw Self.refusal(errcode: "\(code)", message: object["errMsg"] as? String)
        }
        let parameters = Self.values(object)
        return XiaomiAnswer(
            parameters: parameters,
            signatureHolds: parameters["signature"].map { signature.isValid($0, of: parameters) } ?? false)
    }

    /// The answer's members as the text Xiaomi signed: strings URL-decoded (Xiaomi encodes its
    /// text members in the answer), numbers as written.
    static func values(_ object: [String: Any]) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in object {
            switch value {
            case let text as String: values[name] = text.removingPercentEncoding ?? text
            case let number as NSNumber: values[name] = number.stringValue
            default: continue
            }
        }
        return values
    }

    /// Xiaomi's documented `errcode`s: 1506 no such order (`cpOrderId`), 1516 not this user's,
    /// 1515 our `appId` refused and 1525 our signature refused (an operator's fix); anything
    /// else taken as Xiaomi's own trouble and retried, as a missed credit costs more than a retry.
    static func refusal(errcode: String, message: String?) -> StoreCallError {
        let text = "errcode \(errcode)" + (message.map { ": " + String($0.prefix(200)) } ?? "")
        let code: StoreCallError.Code =
            switch errcode {
            case "1506", "1516": .notFound
            case "1515", "1525": .unauthorized
            default: .unavailable
            }
        return StoreCallError(code, store: "Xiaomi", call: "queryOrder", message: text, responseCode: errcode)
    }

    static func error(_ code: StoreCallError.Code, _ message: String) -> StoreCallError {
        StoreCallError(code, store: "Xiaomi", call: "queryOrder", message: message)
    }

    /// `value` percent-encoded but for RFC 3986's unreserved characters (ASCII letters, digits,
    /// `-._~`): how a query's values and Xiaomi's text members travel.
    public static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// Xiaomi's answer to an order query: its parameters (decoded), and whether its signature
/// holds with the app's `AppSecret`.
public struct XiaomiAnswer: Sendable, Hashable {
    public var parameters: [String: String]
    public var signatureHolds: Bool
}
