import Foundation
import Synchronization
import Xiaomi

/// Xiaomi's game payment server, as the pipeline meets it: the order query
/// (`GET /xiaomi/api/biz/service/queryOrder.do`), which checks the caller's signature and
/// answers the order signed with the app's `AppSecret` as Xiaomi does (text members
/// URL-encoded), and the payment notices Xiaomi pushes, signed the same way
/// (``notice(cpOrderID:forged:)``), over orders registered here.
///
/// ```swift
/// let xiaomi = store.xiaomi
/// let order = xiaomi.pay(cpOrderID: "ord-1", uid: "100010", productCode: "coins_100", payFee: 600)
/// let query = xiaomi.notice(cpOrderID: "ord-1")   // GET /v1/xiaomi/notifications?<query>
/// ```
public final class StubXiaomi: Sendable {
    public struct Configuration: Sendable {
        /// The first this many queries answer `503`.
        public var failFirst = 0
        /// Then the next this many answer `429` with `Retry-After: 1`.
        public var rateLimitFirst = 0
        /// Sign answers with another secret: a forgery.
        public var forgeSignatures = false

        public init() {}
    }

    /// An app id of Xiaomi's form, and the secret the stub shares with it.
    public static let appID = "2882303761517239138"
    public static let appSecret = "stub-xiaomi-app-secret"
    static let forgerSecret = "not-the-app-secret"

    public let configuration = Mutex(Configuration())
    let now: @Sendable () -> Date
    let state = Mutex(State())

    struct State {
        /// Orders by our order id (`cpOrderId`).
        var orders: [String: XiaomiOrderInfo] = [:]
        var queries = 0
        var sequence = 0
    }

    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Order queries answered so far (refusals included).
    public var queries: Int { state.withLock { $0.queries } }

    /// A payment Xiaomi took for our order `cpOrderID`: registered (or replaced) and returned,
    /// with Xiaomi's own order id.
    @discardableResult
    public func pay(
        cpOrderID: String, uid: String, productCode: String, payFee: Int64, productCount: Int = 1,
        cpUserInfo: String? = nil, status: String = XiaomiOrderInfo.paid, orderID: String? = nil
    ) -> XiaomiOrderInfo {
        state.withLock { state in
            state.sequence += 1
            let order = XiaomiOrderInfo(
                appID: Self.appID, cpOrderID: cpOrderID, cpUserInfo: cpUserInfo, uid: uid,
                orderID: orderID ?? state.orders[cpOrderID]?.orderID ?? "21\(1_000_000_000 + state.sequence)",
                orderStatus: status, payFee: payFee, productCode: productCode, productCount: productCount,
                payTime: Self.payTime(now()), orderConsumeType: "10")
            state.orders[cpOrderID] = order
            return order
        }
    }

    /// The order registered under `cpOrderID`.
    public func order(cpOrderID: String) -> XiaomiOrderInfo? { state.withLock { $0.orders[cpOrderID] } }

    /// The query string of the notice Xiaomi would push about `cpOrderID`, signed with the app's
    /// secret (`forged`: another's); nil for an order not registered.
    public func notice(cpOrderID: String, forged: Bool = false) -> String? {
        guard let order = order(cpOrderID: cpOrderID) else { return nil }
        var parameters = order.parameters
        parameters["productName"] = "商品 \(order.productCode)"
        return Self.notice(parameters, secret: forged ? Self.forgerSecret : Self.appSecret)
    }

    /// `parameters` signed with `secret` and encoded as Xiaomi's Java does (`+` for a space): a
    /// notice of any content, for tests of what the intake makes of one.
    public static func notice(_ parameters: [String: String], secret: String = appSecret) -> String {
        var parameters = parameters
        parameters["signature"] = XiaomiSignature(secret: secret).sign(parameters)
        func encoded(_ text: String) -> String { XiaomiClient.encoded(text).replacingOccurrences(of: "%20", with: "+") }
        return parameters.keys.sorted().map { "\(encoded($0))=\(encoded(parameters[$0]!))" }.joined(separator: "&")
    }

    /// Beijing time, as Xiaomi writes `payTime`.
    static func payTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 8 * 3600)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
